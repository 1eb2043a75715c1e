/**
 * Request bodies that stop or that the node stops reading. An upload that sends nothing for the idle timeout is
 * ended (and its staged bytes removed) instead of holding a temp file and a connection for ever. A body left
 * unread by an early answer (a full disk, a refused part) is read to its end and discarded, up to MAX_DRAIN
 * bytes: clients that read the answer only once they have sent their whole body (Python requests) then get it
 * rather than a reset connection. A client that stalls while drained, or sends more, is disconnected.
 */
import type { IncomingMessage } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";

/** Bytes of an unread body discarded after an early answer before the connection is closed instead. */
export const MAX_DRAIN = 256 * 1024 * 1024;

/** Bodies being watched; `stalled`: the client stopped sending, so the answer closes the connection. */
const watched = new WeakMap<IncomingMessage, { stalled: boolean }>();

/**
 * Calls `onIdle` once when the connection of `raw` receives no byte for `idleMs` before the body is complete.
 * Returns a function that stops watching.
 */
export function watchIdleBody(raw: IncomingMessage, idleMs: number, onIdle: () => void): () => void {
  const state = watched.get(raw) ?? { stalled: false };
  watched.set(raw, state);
  const socket = raw.socket;
  let seen = socket.bytesRead;
  let since = Date.now();
  const timer = setInterval(
    () => {
      if (raw.complete || socket.destroyed) return clearInterval(timer);
      if (socket.bytesRead !== seen) {
        seen = socket.bytesRead;
        since = Date.now();
      } else if (Date.now() - since >= idleMs) {
        clearInterval(timer);
        state.stalled = true;
        onIdle();
      }
    },
    Math.min(1000, Math.max(50, idleMs / 4)),
  );
  timer.unref();
  return () => clearInterval(timer);
}

/** Before an answer is sent: what to do with the rest of a body the node did not read. */
export function finishUnreadBody(request: FastifyRequest, reply: FastifyReply): void {
  const raw = request.raw;
  if (raw.complete || raw.destroyed) return;
  if (watched.get(raw)?.stalled) {
    reply.header("connection", "close");
    return;
  }
  const stop = watchIdleBody(raw, request.server.uploadIdleMs, () => raw.socket.destroy());
  void discardRest(raw).then(stop);
}

/**
 * Before an answer that closes the connection once sent (a failed tus request: the upload library ends the
 * request after it): the rest of the body read and discarded first, so that the close comes after the client's
 * last byte and cannot reset the answer away. Resolves once the body ended or its connection closed; a body
 * whose client stalled (the idle watch of its route closes it) resolves at once.
 */
export function settleUnreadBody(raw: IncomingMessage): Promise<void> {
  if (raw.complete || raw.destroyed || watched.get(raw)?.stalled) return Promise.resolve();
  return discardRest(raw);
}

/** Read what is left of `raw` and drop it, closing the connection past MAX_DRAIN bytes; settles at its end. */
function discardRest(raw: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    raw.unpipe();
    let drained = 0;
    raw.on("data", (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > MAX_DRAIN) raw.socket.destroy();
    });
    raw.once("end", () => resolve());
    raw.once("close", () => resolve());
    raw.resume();
  });
}
