/**
 * One error handler. "Failures return an exception document" with "HTTP status equal to errorCode"; "HEAD
 * responses carry the same data in [DataONE]-Exception-* headers" (API text, Errors). The detail code comes from
 * the catalogue for the API method the route serves. Never a stack trace: unexpected errors are logged and
 * answered as ServiceFailure.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { withoutReviewSecret } from "../../auth/review-tokens.ts";
import { isDatabaseTimeout } from "../../db/index.ts";
import { detailCodeFor } from "../../errors/catalogue.ts";
import {
  D1Error,
  type ExceptionName,
  InsufficientResources,
  InvalidRequest,
  NotImplemented,
  ServiceFailure,
} from "../../errors/exceptions.ts";
import { isOutOfSpace } from "../../errors/out-of-space.ts";
import { serializeError } from "../../types/index.ts";
import { finishUnreadBody } from "../body-drain.ts";
import { isFileRequest } from "../file-misses.ts";
import { headerSafe } from "../headers.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The API method a route serves, e.g. "MNRead.get": picks detail codes and labels logs. */
    apiMethod?: string;
  }
}

export function registerErrorHandling(app: FastifyInstance, nodeId: string): void {
  app.setErrorHandler((error: FastifyError | Error, request, reply) => {
    const d1 = toD1Error(error);
    if (isDatabaseTimeout(error)) request.log.warn(`database did not answer in time: ${error.message}`);
    else if (isOutOfSpace(error)) request.log.warn(`no space left to store an upload: ${error.message}`);
    else if (d1.exception === "ServiceFailure" && !(error instanceof D1Error)) {
      request.log.error({ err: error }, "unexpected error");
    }
    sendError(request, reply, d1, nodeId);
  });
  app.setNotFoundHandler((request, reply) => {
    if (isFileRequest(request)) {
      finishUnreadBody(request, reply);
      return reply.code(404).type("text/plain; charset=utf-8").send("Not found.\n");
    }
    // A reviewer link's secret is neither echoed nor logged, whatever was asked of it.
    const path = withoutReviewSecret(request.url.split("?")[0] ?? "");
    const error = new NotImplemented(`${request.method} ${path} is not an operation this node serves.`);
    sendError(request, reply, error, nodeId);
  });
}

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  error: D1Error,
  nodeId: string,
  apiMethod?: string,
): void {
  const method = apiMethod ?? request.routeOptions.config?.apiMethod ?? "";
  finishUnreadBody(request, reply);
  const detailCode = error.detailCode ?? detailCodeFor(method, error.exception);
  if (request.method === "HEAD") {
    reply
      .code(error.errorCode)
      .headers({
        "content-type": "text/xml; charset=utf-8",
        "dataone-exception-name": error.exception,
        "dataone-exception-detailcode": detailCode,
        "dataone-exception-description": headerSafe(error.description),
        "dataone-exception-nodeid": nodeId,
        ...(error.pid !== undefined
          ? {
              "dataone-exception-pid": headerSafe(error.pid),
              "dataone-exception-identifier": headerSafe(error.pid),
            }
          : {}),
      })
      .send();
    return;
  }
  const xml = serializeError({
    exception: error.exception,
    errorCode: error.errorCode,
    detailCode,
    description: error.description,
    nodeId,
    ...(error.pid !== undefined ? { pid: error.pid } : {}),
  });
  reply.code(error.errorCode).type("text/xml; charset=utf-8").send(xml);
}

/** Framework and parser errors become the DataONE exception that fits them. */
function toD1Error(error: FastifyError | Error): D1Error {
  if (error instanceof D1Error) return error;
  // "InsufficientResources (413): load, storage, or size prevents the request" (API text, Errors).
  if (isOutOfSpace(error)) {
    return new InsufficientResources("The node has no space left to store the object; nothing was stored.");
  }
  if (isDatabaseTimeout(error)) {
    return new ServiceFailure("The node's database did not answer in time; Try again later.");
  }
  const code = (error as FastifyError).code ?? "";
  const status = (error as FastifyError).statusCode ?? 500;
  if (code === "FST_REQ_FILE_TOO_LARGE" || status === 413) {
    return new InsufficientResources(`The request is too large: ${error.message}`);
  }
  if (code === "FST_INVALID_MULTIPART_CONTENT_TYPE" || code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
    return new InvalidRequest("The request body must be multipart/form-data.");
  }
  // The multipart parser's own complaints about the request it was given.
  if (error.message === "Multipart: Boundary not found") {
    return new InvalidRequest(
      'The Content-Type multipart/form-data has no boundary parameter (e.g. "multipart/form-data; boundary=x"), so its parts cannot be read.',
    );
  }
  if (/^(Unexpected end of (multipart data|form)|Malformed part header)/.test(error.message)) {
    return new InvalidRequest(`The multipart/form-data body is malformed: ${error.message}.`);
  }
  if (status >= 400 && status < 500) return new InvalidRequest(`The request is malformed: ${error.message}`);
  // PostgreSQL refusing a character in text (U+0000: 22021, 22P05): the request carried it, not a node fault.
  if (code === "22021" || code === "22P05") {
    return new InvalidRequest(
      "The request holds a character (such as U+0000) that no stored value can hold.",
    );
  }
  return new ServiceFailure("The node failed to complete the request; the failure is logged.");
}

export type { ExceptionName };
