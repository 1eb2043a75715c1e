/**
 * The sign-in calls MetacatUI makes to DataONE's portal service, served at {basePath}/portal (so a lone Member
 * Node is its own `d1CNBaseUrl`: MetacatUI appends /portal/... to it):
 * - `GET /portal/oauth?action=start&target=URL` (also `startRequest?target=` and `ldap?target=`): start the
 *   OpenID Connect sign-in, returning to `target`; `&provider=NAME` picks a provider;
 * - `GET /portal/callback`: the provider's answer; a new session and its cookie, then back to the target;
 * - `GET /portal/token`: the signed-in person's DataONE token (text; a JWT with userId, fullName, exp that this
 *   node accepts as a bearer token until that sign-in ends), or 401;
 * - `GET|POST /portal/logout?target=URL`: end the session everywhere and forget the cookie.
 * Targets must pass the redirect rule (auth/oidc/redirect-targets.ts).
 * HEAD is answered as GET is, with no body and no effect (RFC 9110: HEAD is safe, "the same header fields ...
 * MAY omit header fields for which a value is determined only while generating the content"): oauth's 302 leads
 * to the provider's authorization endpoint with no state recorded and no state cookie; token mints but sends
 * nothing; logout ends no session and keeps the cookie. The callback redeems a one-time code, which only its GET
 * may do: HEAD there is 405 (Allow: GET), the sign-in under way untouched.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { loadOrCreateSigningKey } from "../../../auth/keys.ts";
import { originOf, redirectRule } from "../../../auth/oidc/redirect-targets.ts";
import type { SignIn } from "../../../auth/oidc/setup.ts";
import { SignInFailed } from "../../../auth/oidc/sign-in.ts";
import { mintToken } from "../../../auth/tokens.ts";
import type { Config } from "../../../config/config.ts";
import { sessionCookieRule } from "../../plugins/ambient-credentials.ts";
import { appendCookie, type SessionCookie } from "../../plugins/session-cookie.ts";
import { rawTarget } from "./targets.ts";

/** The browser's copy of the sign-in state, for the callback alone. */
const STATE_COOKIE = "d1node_signin";
/** A DataONE token's usual lifetime (the CN portal's), cut to the session's end and the node's cap. */
const TOKEN_SECONDS = 18 * 3600;

type PortalConfig = Readonly<
  Pick<
    Config,
    "basePath" | "baseUrl" | "corsOrigins" | "signInRedirectBase" | "dataDir" | "maxTokenLifetime" | "nodeId"
  >
>;

export function registerPortalRoutes(
  app: FastifyInstance,
  config: PortalConfig,
  signIn: SignIn,
  cookie: SessionCookie,
): void {
  const base = `${config.basePath}/portal`;
  const allowedTarget = redirectRule(function* () {
    const own = originOf(config.baseUrl);
    if (own) yield own;
    const back = config.signInRedirectBase ? originOf(config.signInRedirectBase) : undefined;
    if (back) yield back;
    yield* config.corsOrigins;
  });
  const cookieCounts = sessionCookieRule(config);
  const { privateKey } = loadOrCreateSigningKey(config.dataDir);
  const secure = () => signIn.redirectUri().startsWith("https:");
  const stateCookie = (value: string, maxAge: number) =>
    `${STATE_COOKIE}=${value}; Path=${base}/callback; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure() ? "; Secure" : ""}`;

  const start = (fixed?: string) => async (request: FastifyRequest, reply: FastifyReply) => {
    const head = request.method === "HEAD";
    const query = request.query as Record<string, string | undefined>;
    const given = rawTarget(request);
    const target = given === undefined ? allowedTarget("/") : allowedTarget(given);
    if (target === undefined) {
      return plain(reply, 400, "The target is not a page of this repository; sign-in was not started.");
    }
    const name = query.provider ?? (fixed && signIn.providers.forSignIn(fixed) ? fixed : undefined);
    try {
      if (head) {
        const location = await signIn.flow.preview(name);
        return reply.header("cache-control", "no-store").redirect(location.href, 302);
      }
      const { location, state } = await signIn.flow.start(name, target);
      appendCookie(reply, stateCookie(state, 600));
      return reply.header("cache-control", "no-store").redirect(location.href, 302);
    } catch (error) {
      if (error instanceof SignInFailed) return plain(reply, 404, error.message);
      request.log.warn({ err: error }, "sign-in could not start");
      return plain(reply, 503, "The sign-in provider cannot be reached; please try again later.");
    }
  };
  const api = { config: { apiMethod: "portal" } };
  const getAndHead = (url: string, handler: (request: FastifyRequest, reply: FastifyReply) => unknown) =>
    app.route({ method: ["GET", "HEAD"], url, ...api, handler });
  getAndHead(`${base}/oauth`, start());
  getAndHead(`${base}/startRequest`, start("cilogon"));
  getAndHead(`${base}/ldap`, start("ldap"));

  app.head(`${base}/callback`, api, async (_request, reply) =>
    reply
      .code(405)
      .header("allow", "GET")
      .header("cache-control", "no-store")
      .type("text/plain; charset=utf-8")
      .send(),
  );
  app.get(`${base}/callback`, api, async (request, reply) => {
    const given = new URL(request.raw.url ?? "", "http://callback.invalid");
    const browserState = readCookie(request, STATE_COOKIE);
    appendCookie(reply, stateCookie("", 0));
    try {
      const { person, target } = await signIn.flow.finish(given, browserState);
      await signIn.store.recordPerson(person, Date.now());
      // A new session id at every sign-in: a session id planted before it never becomes a signed-in one.
      const old = cookie.read(request);
      if (old !== undefined) await signIn.sessions.close(old);
      const session = await signIn.sessions.open(person.subject, person.fullName, person.provider);
      cookie.set(reply, session.id, session.expiresAt);
      return reply.header("cache-control", "no-store").redirect(target, 302);
    } catch (error) {
      if (error instanceof SignInFailed) return plain(reply, 400, `Sign-in failed: ${error.message}`);
      throw error;
    }
  });

  getAndHead(`${base}/token`, async (request, reply) => {
    reply.header("cache-control", "no-store");
    const id = cookie.read(request);
    const session = id !== undefined && cookieCounts(request) ? await signIn.sessions.lookup(id) : undefined;
    if (!session) return plain(reply, 401, "Not signed in.");
    const left = Math.floor((session.expiresAt - Date.now()) / 1000);
    const cap = config.maxTokenLifetime > 0 ? config.maxTokenLifetime : TOKEN_SECONDS;
    const key = id === undefined ? undefined : signIn.sessions.keyOf(id);
    const token = await mintToken(privateKey, {
      subject: session.subject,
      fullName: session.fullName ?? session.subject,
      ttlSeconds: Math.max(1, Math.min(left, TOKEN_SECONDS, cap)),
      // Ended with the sign-in: a copy the page kept stops working at sign-out.
      ...(key ? { browserSession: { node: config.nodeId, key } } : {}),
    });
    return reply.type("text/plain; charset=utf-8").send(token);
  });

  const logout = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== "HEAD") {
      const id = cookie.read(request);
      if (id !== undefined) await signIn.sessions.close(id);
      cookie.clear(reply);
    }
    reply.header("cache-control", "no-store");
    const given = rawTarget(request);
    const target = given === undefined ? undefined : allowedTarget(given);
    return target === undefined ? plain(reply, 200, "Signed out.") : reply.redirect(target, 302);
  };
  getAndHead(`${base}/logout`, logout);
  app.post(`${base}/logout`, api, logout);
}

function plain(reply: FastifyReply, status: number, text: string) {
  return reply.code(status).type("text/plain; charset=utf-8").send(`${text}\n`);
}

function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie ?? "";
  for (const part of header.split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}
