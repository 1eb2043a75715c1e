/**
 * Requests a route hands to the not-found handler as a file of the node's website (plugins/errors.ts): a file
 * that does not exist is answered "404 Not Found", as a web server does, not with the API's NotImplemented
 * (which says "this node serves no such operation" and stays the answer for unknown API paths).
 */
import type { FastifyRequest } from "fastify";

const fileRequests = new WeakSet<object>();

/** Marks the request as one for a website file, before the file is looked for. */
export function markFileRequest(request: FastifyRequest): void {
  fileRequests.add(request.raw);
}

export function isFileRequest(request: FastifyRequest): boolean {
  return fileRequests.has(request.raw);
}
