/**
 * CORS for browser clients (such as MetacatUI) served from another origin, DataONE's search.dataone.org included:
 * it calls every Member Node from the browser with its token in `Authorization: Bearer` and `withCredentials`,
 * and a browser accepts an answer to such a request (and its preflight) only when it echoes the origin with
 * `Access-Control-Allow-Credentials: true`: `*` would fail every logged-in call. So every origin is echoed with
 * credentials and may preflight the API's methods and the Authorization header. What keeps a page the user happens
 * to visit from acting as the user is that the node honours no ambient credential for it: the client certificate
 * and the sign-in session cookie count only for the node's own origin and those the operator lists (config corsOrigins;
 * ambient-credentials.ts). The opaque origin `null` (sandboxed frames, file: pages) is answered with `*`.
 */
import type { FastifyInstance } from "fastify";

const EXPOSED = [
  "Content-Disposition",
  "Content-Length",
  "Last-Modified",
  "ETag",
  "Accept-Ranges",
  "Content-Range",
  "DataONE-Checksum",
  "DataONE-SerialVersion",
  "DataONE-ObjectFormat",
  "DataONE-FormatId",
  "DataONE-Exception-Name",
  "DataONE-Exception-DetailCode",
  "DataONE-Exception-Description",
  "DataONE-Exception-PID",
].join(", ");

/** What any origin may preflight: the API's methods, its token, content type and the read conditions. */
const METHODS = "GET, HEAD, POST, PUT, DELETE";
const HEADERS = "Authorization, Content-Type, Range, If-Range, If-None-Match, If-Modified-Since";
const ALL_METHODS = "GET, HEAD, POST, PUT, DELETE, OPTIONS";

export function registerCors(app: FastifyInstance): void {
  app.addHook("onRequest", (request, reply, done) => {
    const origin = request.headers.origin;
    if (origin === undefined) return done();
    reply.header("Vary", "Origin");
    if (origin === "null") {
      reply.header("Access-Control-Allow-Origin", "*");
    } else {
      reply.header("Access-Control-Allow-Origin", origin);
      reply.header("Access-Control-Allow-Credentials", "true");
    }
    reply.header("Access-Control-Expose-Headers", EXPOSED);
    done();
  });

  app.options("*", async (request, reply) => {
    if (
      request.headers.origin !== undefined &&
      request.headers["access-control-request-method"] !== undefined
    ) {
      reply.header("Access-Control-Allow-Methods", METHODS);
      reply.header("Access-Control-Allow-Headers", HEADERS);
      reply.header("Access-Control-Max-Age", "600");
    }
    reply.header("Allow", ALL_METHODS);
    return reply.code(204).send();
  });
}
