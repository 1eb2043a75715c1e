/**
 * The sign-in session cookie: HttpOnly (no script reads it), SameSite=Lax (not sent with other sites'
 * subresource requests or form POSTs), Secure and `__Host-` prefixed when the node is served over https (then
 * no other host nor plain http can set or read it), Path=/. Its value is the session id of auth/browser-sessions.ts.
 */
import { parse, serialize } from "cookie";
import type { FastifyReply, FastifyRequest } from "fastify";

export interface SessionCookie {
  /** The cookie's name: `__Host-d1node_session` over https, `d1node_session` otherwise. */
  name: string;
  read(request: FastifyRequest): string | undefined;
  set(reply: FastifyReply, id: string, expiresAt: number): void;
  clear(reply: FastifyReply): void;
}

/** `secure` is asked per call: a node on port 0 knows its URL only once listening. */
export function sessionCookie(base: string, secure: () => boolean): SessionCookie {
  const nameFor = (isSecure: boolean) => (isSecure ? `__Host-${base}` : base);
  const options = (isSecure: boolean) => ({
    httpOnly: true,
    secure: isSecure,
    sameSite: "lax" as const,
    path: "/",
  });
  return {
    get name() {
      return nameFor(secure());
    },
    read(request) {
      const header = request.headers.cookie;
      if (!header) return undefined;
      return parse(header)[nameFor(secure())];
    },
    set(reply, id, expiresAt) {
      const isSecure = secure();
      appendCookie(
        reply,
        serialize(nameFor(isSecure), id, { ...options(isSecure), expires: new Date(expiresAt) }),
      );
    },
    clear(reply) {
      const isSecure = secure();
      appendCookie(reply, serialize(nameFor(isSecure), "", { ...options(isSecure), expires: new Date(0) }));
    },
  };
}

export function appendCookie(reply: FastifyReply, cookie: string): void {
  const existing = reply.getHeader("set-cookie");
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  reply.header("set-cookie", [...list, cookie]);
}
