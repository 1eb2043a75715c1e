/**
 * CORS for browser clients (such as MetacatUI) served from another origin: echo the Origin, answer preflight
 * OPTIONS, allow the Authorization header, expose the DataONE headers.
 */
import type { FastifyInstance } from "fastify";

const EXPOSED = [
  "Content-Disposition",
  "Content-Length",
  "Last-Modified",
  "DataONE-Checksum",
  "DataONE-SerialVersion",
  "DataONE-ObjectFormat",
  "DataONE-FormatId",
  "DataONE-Exception-Name",
  "DataONE-Exception-DetailCode",
  "DataONE-Exception-Description",
  "DataONE-Exception-PID",
].join(", ");

export function registerCors(app: FastifyInstance, origins: readonly string[]): void {
  const allowed = (origin: string) => origins.includes("*") || origins.includes(origin);
  app.addHook("onRequest", async (request, reply) => {
    const origin = request.headers.origin;
    if (!origin || !allowed(origin)) return;
    reply.header("Access-Control-Allow-Origin", origin);
    reply.header("Access-Control-Allow-Credentials", "true");
    reply.header("Access-Control-Expose-Headers", EXPOSED);
    reply.header("Vary", "Origin");
  });
  app.options("*", async (request, reply) => {
    const origin = request.headers.origin;
    if (origin && allowed(origin)) {
      reply.header("Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, DELETE, OPTIONS");
      reply.header(
        "Access-Control-Allow-Headers",
        request.headers["access-control-request-headers"] ?? "Authorization, Content-Type, Range",
      );
      reply.header("Access-Control-Max-Age", "86400");
    }
    reply.header("Allow", "GET, HEAD, POST, PUT, DELETE, OPTIONS");
    return reply.code(204).send();
  });
}
