/**
 * Bearer tokens: "Authorization: Bearer <ACCESS_TOKEN>" (API text, Authentication 2). RS256 JWTs whose
 * signature must verify with one of the trusted public keys; `exp` is enforced; the subject is `sub`
 * (DataONE tokens also carry it as `userId`).
 */
import type { KeyObject } from "node:crypto";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { InvalidToken } from "../errors/exceptions.ts";

export interface MintOptions {
  subject: string;
  /** Lifetime in seconds. */
  ttlSeconds?: number;
  fullName?: string;
}

export async function mintToken(privateKey: KeyObject, options: MintOptions): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const ttl = options.ttlSeconds ?? 18 * 3600;
  return new SignJWT({ userId: options.subject, fullName: options.fullName ?? options.subject, ttl })
    .setProtectedHeader({ alg: "RS256", typ: "JWT" })
    .setSubject(options.subject)
    .setIssuedAt(now)
    .setExpirationTime(now + ttl)
    .sign(privateKey);
}

/** Verify a token against each trusted key; returns its subject or throws InvalidToken saying why. */
export async function verifyToken(token: string, keys: readonly KeyObject[]): Promise<string> {
  let reason = "its signature does not verify with any trusted key";
  for (const key of keys) {
    try {
      const { payload } = await jwtVerify(token, key, { algorithms: ["RS256"] });
      const subject = typeof payload.sub === "string" && payload.sub !== "" ? payload.sub : payload.userId;
      if (typeof subject !== "string" || subject === "") {
        throw new InvalidToken("The bearer token names no subject (sub or userId claim).");
      }
      return subject;
    } catch (error) {
      if (error instanceof InvalidToken) throw error;
      if (error instanceof joseErrors.JWTExpired) throw new InvalidToken("The bearer token has expired.");
      if (error instanceof joseErrors.JWSSignatureVerificationFailed) continue;
      if (error instanceof joseErrors.JOSEError) reason = `it cannot be parsed or verified (${error.code})`;
    }
  }
  throw new InvalidToken(`The bearer token is not valid: ${reason}.`);
}
