/** Per-request facts the services need: the session and what the event log records. */
import type { FastifyReply, FastifyRequest } from "fastify";
import { anonymousSession, type Session } from "../auth/session.ts";
import type { CallInfo } from "../context/node-context.ts";

declare module "fastify" {
  interface FastifyRequest {
    session: Session;
    /** The caller's address (the proxy-forwarded one when a trusted proxy sent the request). */
    clientAddress: string;
  }
}

export function callInfo(request: FastifyRequest): CallInfo {
  return {
    session: request.session ?? anonymousSession(),
    ipAddress: request.clientAddress || request.ip,
    userAgent: request.headers["user-agent"] ?? "",
  };
}

/** Typed responses: "a media type of exactly text/xml or application/xml" is what the clients accept. */
export function sendXml(reply: FastifyReply, xml: string): FastifyReply {
  return reply.type("text/xml; charset=utf-8").send(xml);
}

/** Boolean operations: "200 means allowed/true; body is arbitrary and ignored". */
export function sendTrue(reply: FastifyReply): FastifyReply {
  return reply.type("text/plain; charset=utf-8").send("true");
}
