/**
 * The access log: one info line per answered request (`request`: method, URL as sent, status, milliseconds,
 * the route's API method, the caller's address and subject), when the node logs at info or below. The URL is
 * logged as the client sent it, percent-encoding and all; the text format quotes any value with spaces or control
 * characters (src/context/text-log.ts), so a request cannot forge a line. The secret of a reviewer link in a URL
 * is cut out by the node's logger as the line is written (src/context/logger.ts), as from every other line.
 */
import type { FastifyInstance } from "fastify";
import { apiMethodOf } from "../api-method.ts";

const LOGS_INFO = new Set(["info", "debug", "trace"]);

export function registerAccessLog(app: FastifyInstance): void {
  if (!LOGS_INFO.has(app.log.level)) return;
  app.addHook("onResponse", (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        api: apiMethodOf(request) || undefined,
        ip: request.ip,
        subject: request.session?.authenticated ? request.session.subject : undefined,
      },
      "request",
    );
    done();
  });
}
