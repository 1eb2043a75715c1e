/**
 * Who is calling, for every request: the client certificate of the TLS handshake (or the one a trusted proxy
 * forwards) and the bearer token become `request.session` (see src/auth/session.ts). The isAuthorized source
 * limit is installed here too, ahead of the session, since it counts callers by the same (proxy-aware) address.
 * A browser's request for a page of another origin is not authenticated by the certificate or the sign-in cookie
 * (ambient-credentials.ts); a cookie-only request that changes state must show it comes from the node's pages.
 */
import { TLSSocket } from "node:tls";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ClientCertificate, SessionResolver } from "../../auth/session.ts";
import type { Config } from "../../config/config.ts";
import { ambientCredentialsRule, sessionCookieRule } from "./ambient-credentials.ts";
import { registerIsAuthorizedLimit } from "./is-authorized-limit.ts";
import { trustedProxy } from "./proxy.ts";
import type { SessionCookie } from "./session-cookie.ts";

export function registerSessions(
  app: FastifyInstance,
  sessions: SessionResolver,
  config: Readonly<Config>,
  cookie?: SessionCookie,
): void {
  const proxy = trustedProxy(config);
  registerIsAuthorizedLimit(
    app,
    { limit: config.isAuthorizedLimit, blockSeconds: config.isAuthorizedBlockSeconds },
    proxy.clientAddress,
  );
  const viaProxy = config.proxySecret !== undefined;
  const mayUseCertificate = ambientCredentialsRule(config);
  const mayUseCookie = sessionCookieRule(config);
  app.decorateRequest("session");
  app.decorateRequest("clientAddress", "");
  // A callback hook: an anonymous caller's session is known at once, with no promise to wait for.
  app.addHook("onRequest", (request, _reply, done) => {
    request.clientAddress = proxy.clientAddress(request);
    const ambient = mayUseCertificate(request);
    const certificate = ambient ? handshakeCertificate(request) : undefined;
    const forwarded = ambient && !certificate && viaProxy ? proxy.forwarded(request) : {};
    const browserSession = cookie?.read(request);
    const credentials = {
      certificate,
      ...forwarded,
      authorization: request.headers.authorization,
      ...(browserSession !== undefined && mayUseCookie(request) ? { browserSession } : {}),
    };
    const known = sessions.resolveNow?.(credentials);
    if (known) {
      request.session = known;
      return done();
    }
    sessions.resolve(credentials).then((session) => {
      request.session = session;
      done();
    }, done);
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
