/**
 * Who is calling, for every request: the client certificate of the TLS handshake (or the one a trusted proxy
 * forwards) and the bearer token become `request.session` (see src/auth/session.ts). The isAuthorized source
 * limit is installed here too, ahead of the session, since it counts callers by the same (proxy-aware) address.
 */
import { TLSSocket } from "node:tls";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ClientCertificate, SessionResolver } from "../../auth/session.ts";
import type { Config } from "../../config/config.ts";
import { registerIsAuthorizedLimit } from "./is-authorized-limit.ts";
import { trustedProxy } from "./proxy.ts";

export function registerSessions(
  app: FastifyInstance,
  sessions: SessionResolver,
  config: Readonly<Config>,
): void {
  const proxy = trustedProxy(config);
  registerIsAuthorizedLimit(
    app,
    { limit: config.isAuthorizedLimit, blockSeconds: config.isAuthorizedBlockSeconds },
    proxy.clientAddress,
  );
  const viaProxy = config.proxySecret !== undefined;
  app.decorateRequest("session");
  app.decorateRequest("clientAddress", "");
  app.addHook("onRequest", async (request) => {
    request.clientAddress = proxy.clientAddress(request);
    const certificate = handshakeCertificate(request);
    const forwarded = !certificate && viaProxy ? proxy.forwarded(request) : {};
    request.session = await sessions.resolve({
      certificate,
      ...forwarded,
      authorization: request.headers.authorization,
    });
  });
}

/** The peer certificate is fixed for a connection: read once per TLS socket. */
const peerCertificates = new WeakMap<TLSSocket, ClientCertificate | null>();

function handshakeCertificate(request: FastifyRequest): ClientCertificate | undefined {
  const socket = request.raw.socket;
  if (!(socket instanceof TLSSocket)) return undefined;
  let found = peerCertificates.get(socket);
  if (found === undefined) {
    const peer = socket.getPeerCertificate();
    found =
      peer && Buffer.isBuffer(peer.raw) && peer.raw.length > 0
        ? {
            source: "tls",
            der: peer.raw,
            rejection: socket.authorized ? undefined : String(socket.authorizationError ?? "UNVERIFIED"),
            connection: socket,
          }
        : null;
    peerCertificates.set(socket, found);
  }
  return found ?? undefined;
}
