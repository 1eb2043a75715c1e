/**
 * Who is calling. Every session holds `public`; authenticated sessions also hold `authenticatedUser`.
 * Certificates, group and equivalent-identity expansion slot in here (they only add subjects).
 */
import type { KeyObject } from "node:crypto";
import type { Config } from "../config/config.ts";
import { InvalidToken } from "../errors/exceptions.ts";
import { verifyToken } from "./tokens.ts";

export const PUBLIC = "public";
export const AUTHENTICATED_USER = "authenticatedUser";

export interface Session {
  /** The primary subject ("public" when anonymous). */
  subject: string;
  /** The primary subject and every subject it stands for. */
  subjects: ReadonlySet<string>;
  authenticated: boolean;
  /** A node administrator: every right on this node. */
  isAdmin: boolean;
  /** A Coordinating Node: trusted for the CN-only calls. */
  isCn: boolean;
}

export function anonymousSession(): Session {
  return { subject: PUBLIC, subjects: new Set([PUBLIC]), authenticated: false, isAdmin: false, isCn: false };
}

export function sessionFor(subject: string, config: Pick<Config, "adminSubjects" | "cnSubjects">): Session {
  return {
    subject,
    subjects: new Set([subject, AUTHENTICATED_USER, PUBLIC]),
    authenticated: true,
    isAdmin: config.adminSubjects.includes(subject),
    isCn: config.cnSubjects.includes(subject),
  };
}

export interface SessionResolver {
  /** From the request's Authorization header value (undefined when absent). */
  resolve(authorization: string | undefined): Promise<Session>;
}

export function createSessionResolver(
  keys: readonly KeyObject[],
  config: Pick<Config, "adminSubjects" | "cnSubjects">,
): SessionResolver {
  return {
    async resolve(authorization) {
      if (authorization === undefined || authorization.trim() === "") return anonymousSession();
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!match?.[1]) throw new InvalidToken("The Authorization header must have the form: Bearer <token>.");
      return sessionFor(await verifyToken(match[1], keys), config);
    },
  };
}
