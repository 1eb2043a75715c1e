/**
 * Browser sessions: a random 256-bit id, given to the browser in a cookie and kept in the database only as its
 * SHA-256, so that every serving process honours it and a logout or expiry ends it everywhere. Only ids the node
 * made at a sign-in are honoured (a new one at every sign-in: a fixed or guessed id is unknown).
 */
import { createHash, randomBytes } from "node:crypto";
import type { BrowserSessionRecord, BrowserSessionStore } from "./browser-session-store.ts";

export const hashOf = (value: string) => createHash("sha256").update(value).digest("base64url");

export const randomId = () => randomBytes(32).toString("base64url");

/** The shape of an id the node makes, and of its key (43 base64url characters): anything else is not looked up. */
const ID = /^[A-Za-z0-9_-]{43}$/;

export interface BrowserSessions {
  /** A new session for `subject`; returns the id (for the cookie) and when it ends. */
  open(
    subject: string,
    fullName: string | undefined,
    provider: string,
  ): Promise<{ id: string; expiresAt: number }>;
  lookup(id: string): Promise<BrowserSessionRecord | undefined>;
  close(id: string): Promise<void>;
  /** The session's key in the database, named by the tokens handed to its browser (tokens.ts). */
  keyOf(id: string): string | undefined;
  /** Whether the session with this key is open (not signed out, not expired). */
  isOpen(key: string): Promise<boolean>;
}

export function browserSessions(store: BrowserSessionStore, lifetimeSeconds: number): BrowserSessions {
  return {
    async open(subject, fullName, provider) {
      const now = Date.now();
      await store.removeExpired(now);
      const id = randomId();
      const expiresAt = now + lifetimeSeconds * 1000;
      await store.create(hashOf(id), { subject, fullName, provider, expiresAt });
      return { id, expiresAt };
    },
    lookup: (id) => (ID.test(id) ? store.find(hashOf(id), Date.now()) : Promise.resolve(undefined)),
    close: (id) => (ID.test(id) ? store.revoke(hashOf(id)) : Promise.resolve()),
    keyOf: (id) => (ID.test(id) ? hashOf(id) : undefined),
    isOpen: async (key) => ID.test(key) && (await store.find(key, Date.now())) !== undefined,
  };
}
