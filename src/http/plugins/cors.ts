/**
 * CORS for browser clients (such as MetacatUI) served from another origin.
 *
 * Any origin may read the public API, without credentials: `Access-Control-Allow-Origin: *` and never
 * `Access-Control-Allow-Credentials`, so a page a user happens to visit cannot act with the user's cookie or client
 * certificate. Only origins the operator lists (config corsOrigins, e.g. the node's MetacatUI) are echoed with
 * credentials, and only they may preflight the write methods and the Authorization header (MetacatUI sends its
 * token there, with `withCredentials`). The opaque origin `null` (sandboxed frames, file: pages) is never listed.
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

/** What any origin may preflight: the reads (POST only carries query forms, e.g. MN query/solr). */
const PUBLIC_METHODS = "GET, HEAD, POST";
const CONDITIONS = "Range, If-Range, If-None-Match, If-Modified-Since";
const PUBLIC_HEADERS = `Content-Type, ${CONDITIONS}`;
/** What a listed origin may preflight besides: the API's write methods and the bearer token. */
const TRUSTED_METHODS = "GET, HEAD, POST, PUT, DELETE";
const TRUSTED_HEADERS = `Authorization, Content-Type, ${CONDITIONS}`;
const ALL_METHODS = "GET, HEAD, POST, PUT, DELETE, OPTIONS";

export function registerCors(app: FastifyInstance, trustedOrigins: readonly string[]): void {
  const trusted = new Set(trustedOrigins);
  const isTrusted = (origin: string) => origin !== "null" && trusted.has(origin);

  app.addHook("onRequest", (request, reply, done) => {
    const origin = request.headers.origin;
    if (origin === undefined) return done();
    reply.header("Vary", "Origin");
    if (isTrusted(origin)) {
      reply.header("Access-Control-Allow-Origin", origin);
      reply.header("Access-Control-Allow-Credentials", "true");
    } else {
      reply.header("Access-Control-Allow-Origin", "*");
    }
    reply.header("Access-Control-Expose-Headers", EXPOSED);
    done();
  });

  app.options("*", async (request, reply) => {
    const origin = request.headers.origin;
    if (origin !== undefined && request.headers["access-control-request-method"] !== undefined) {
      const withCredentials = isTrusted(origin);
      reply.header("Access-Control-Allow-Methods", withCredentials ? TRUSTED_METHODS : PUBLIC_METHODS);
      reply.header("Access-Control-Allow-Headers", withCredentials ? TRUSTED_HEADERS : PUBLIC_HEADERS);
      reply.header("Access-Control-Max-Age", "600");
    }
    reply.header("Allow", ALL_METHODS);
    return reply.code(204).send();
  });
}
