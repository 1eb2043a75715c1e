/**
 * Which requests may be authenticated by an ambient credential: the client certificate a browser presents by
 * itself (in the TLS handshake, or forwarded by the proxy as a certificate or DN), and the sign-in session cookie.
 * A bearer token is not ambient (a page can only send a token it holds).
 *
 * A request a browser makes for a page of another origin must not act as the user by the certificate alone, or
 * any page the user visits could create, update or read private objects in the user's name (a cross-site form
 * POST of multipart/form-data needs no preflight). So the certificate counts only for requests that are not
 * cross-origin, or that come from an origin the operator lists in corsOrigins (the node's MetacatUI):
 * - with an Origin header (every CORS request, every cross-origin POST): the node's own origin or a listed one;
 * - without one, by the browser's Sec-Fetch-Site: same-origin or none (typed, bookmarked), or a top-level GET
 *   navigation from another site (a followed link, as a SameSite=Lax cookie would go);
 * - neither header (programs: d1_client, curl, other nodes): allowed.
 * The session cookie is held to more (`sessionCookieRule`): for a request that changes state (any method but
 * GET, HEAD, OPTIONS) the browser must show that the page is the node's or a listed origin's, by an Origin header
 * naming one or Sec-Fetch-Site same-origin; a cookie-only request without either is anonymous (no CSRF).
 */
import type { FastifyRequest } from "fastify";
import type { Config } from "../../config/config.ts";

export type AmbientCredentialsRule = (request: FastifyRequest) => boolean;

export function ambientCredentialsRule(
  config: Readonly<Pick<Config, "corsOrigins" | "baseUrl">>,
): AmbientCredentialsRule {
  const listed = new Set(config.corsOrigins);
  listed.delete("null");
  // The node's own origin, read when asked: a node started on port 0 learns its base URL once listening.
  let own = { baseUrl: "", origin: "" };
  const isOwn = (origin: string) => {
    if (own.baseUrl !== config.baseUrl) own = { baseUrl: config.baseUrl, origin: originOf(config.baseUrl) };
    return origin === own.origin;
  };
  return (request) => {
    const origin = header(request, "origin");
    if (origin !== undefined) return listed.has(origin) || isOwn(origin);
    const site = header(request, "sec-fetch-site");
    if (site === undefined || site === "same-origin" || site === "none") return true;
    return (
      (request.method === "GET" || request.method === "HEAD") &&
      header(request, "sec-fetch-mode") === "navigate" &&
      header(request, "sec-fetch-dest") === "document"
    );
  };
}

/** When the sign-in cookie counts: as a certificate does, and for state changes only with proof of origin. */
export function sessionCookieRule(
  config: Readonly<Pick<Config, "corsOrigins" | "baseUrl">>,
): AmbientCredentialsRule {
  const ambient = ambientCredentialsRule(config);
  return (request) => {
    if (!ambient(request)) return false;
    if (request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS") return true;
    // The ambient rule let an Origin through only when own or listed.
    return header(request, "origin") !== undefined || header(request, "sec-fetch-site") === "same-origin";
  };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
