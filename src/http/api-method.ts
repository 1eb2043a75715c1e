/**
 * The API method a request's route serves (its `config.apiMethod`, e.g. "MNRead.get"), read once per request:
 * Fastify's `request.routeOptions` builds a new object of a dozen fields at every read, and the hooks of
 * metrics, body limits and the isAuthorized limit each read it.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";

declare module "fastify" {
  interface FastifyRequest {
    /** null until apiMethodOf() reads it. */
    apiMethod: string | null;
  }
}

/** Called once, before any route: requests start with the method unread. */
export function decorateApiMethod(app: FastifyInstance): void {
  app.decorateRequest("apiMethod", null);
}

/** The route's API method; "" when it names none. */
export function apiMethodOf(request: FastifyRequest): string {
  let method = request.apiMethod;
  if (method === null || method === undefined) {
    method = request.routeOptions.config?.apiMethod ?? "";
    request.apiMethod = method;
  }
  return method;
}
