/**
 * Bearer tokens: "Authorization: Bearer <ACCESS_TOKEN>" (API text, Authentication 2). RS256 JWTs whose
 * signature must verify with one of the trusted public keys; the subject is `sub` (DataONE tokens also carry it
 * as `userId`). A token must carry `exp` (a token without one would be valid forever, so a leaked token could
 * never be taken back), and its lifetime, `exp` minus `iat` (or minus now without `iat`), must not exceed the
 * node's maxTokenLifetime.
 */
import type { KeyObject } from "node:crypto";
import { type JWTPayload, errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { InvalidToken } from "../errors/exceptions.ts";

/**
 * A token handed to a signed-in browser names its sign-in (the node and the session's key), so that the node
 * that issued it refuses it once that sign-in ends: "sign out" ends the token too, not only the cookie.
 */
export interface TokenBrowserSession {
  /** The issuing node's identifier: only that node can tell whether the sign-in is still open. */
  node: string;
  /** The session's key in that node's database (a hash of the cookie's value, which it does not reveal). */
  key: string;
}

export interface MintOptions {
  subject: string;
  /** Lifetime in seconds. */
  ttlSeconds?: number;
  fullName?: string;
  browserSession?: TokenBrowserSession;
}

/** A token that verified: its subject, and the sign-in it belongs to when it was handed to a browser. */
export interface VerifiedToken {
  subject: string;
  browserSession?: TokenBrowserSession;
}

export async function mintToken(privateKey: KeyObject, options: MintOptions): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const ttl = options.ttlSeconds ?? 18 * 3600;
  const session = options.browserSession;
  return new SignJWT({
    userId: options.subject,
    fullName: options.fullName ?? options.subject,
    ttl,
    ...(session ? { browserSessionNode: session.node, browserSession: session.key } : {}),
  })
    .setProtectedHeader({ alg: "RS256", typ: "JWT" })
    .setSubject(options.subject)
    .setIssuedAt(now)
    .setExpirationTime(now + ttl)
    .sign(privateKey);
}

/**
 * Tokens that verified, per set of trusted keys, until they expire (at most 5 minutes): a node called many times
 * with one token (another node harvesting it) checks the RSA signature once, not on every request.
 */
const verified = new WeakMap<readonly KeyObject[], Map<string, { token: VerifiedToken; until: number }>>();
const REMEMBERED_TOKENS = 1000;
const REMEMBER_MS = 5 * 60_000;

function remember(
  keys: readonly KeyObject[],
  token: string,
  claims: VerifiedToken,
  exp: number | undefined,
): void {
  const tokens = verified.get(keys) ?? new Map<string, { token: VerifiedToken; until: number }>();
  verified.set(keys, tokens);
  if (tokens.size >= REMEMBERED_TOKENS) tokens.clear();
  const until = Math.min(Date.now() + REMEMBER_MS, exp === undefined ? Number.POSITIVE_INFINITY : exp * 1000);
  tokens.set(token, { token: claims, until });
}

export interface VerifyOptions {
  /** Longest lifetime accepted, in seconds (exp - iat); 0: any lifetime, as long as exp is set. */
  maxLifetime?: number;
}

/** Verify a token against each trusted key; returns its subject or throws InvalidToken saying why. */
export async function verifyToken(
  token: string,
  keys: readonly KeyObject[],
  options: VerifyOptions = {},
): Promise<string> {
  return (await verifyTokenClaims(token, keys, options)).subject;
}

/** As verifyToken, with the sign-in a browser's token belongs to (checked by the caller: session.ts). */
export async function verifyTokenClaims(
  token: string,
  keys: readonly KeyObject[],
  options: VerifyOptions = {},
): Promise<VerifiedToken> {
  const known = verified.get(keys)?.get(token);
  if (known && Date.now() < known.until) return known.token;
  let reason = "its signature does not verify with any trusted key";
  for (const key of keys) {
    try {
      const { payload } = await jwtVerify(token, key, { algorithms: ["RS256"] });
      checkLifetime(payload, options.maxLifetime ?? 0);
      const subject = typeof payload.sub === "string" && payload.sub !== "" ? payload.sub : payload.userId;
      if (typeof subject !== "string" || subject === "") {
        throw new InvalidToken("The bearer token names no subject (sub or userId claim).");
      }
      const { browserSession, browserSessionNode } = payload;
      const claims: VerifiedToken =
        typeof browserSession === "string" && typeof browserSessionNode === "string"
          ? { subject, browserSession: { node: browserSessionNode, key: browserSession } }
          : { subject };
      remember(keys, token, claims, payload.exp);
      return claims;
    } catch (error) {
      if (error instanceof InvalidToken) throw error;
      if (error instanceof joseErrors.JWTExpired) throw new InvalidToken("The bearer token has expired.");
      if (error instanceof joseErrors.JWSSignatureVerificationFailed) continue;
      if (error instanceof joseErrors.JOSEError) reason = `it cannot be parsed or verified (${error.code})`;
    }
  }
  throw new InvalidToken(`The bearer token is not valid: ${reason}.`);
}

function checkLifetime(payload: JWTPayload, maxLifetime: number): void {
  if (typeof payload.exp !== "number") {
    throw new InvalidToken(
      "The bearer token has no expiry (exp claim); this node accepts only tokens that expire.",
    );
  }
  const from = typeof payload.iat === "number" ? payload.iat : Math.floor(Date.now() / 1000);
  if (maxLifetime > 0 && payload.exp - from > maxLifetime) {
    throw new InvalidToken(
      `The bearer token is valid for ${payload.exp - from} s; this node accepts tokens valid for at most ` +
        `${maxLifetime} s (maxTokenLifetime).`,
    );
  }
}
