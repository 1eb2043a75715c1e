/**
 * The secret of a reviewer link: `<id>.<secret>`, where the id (16 base64url characters, 96 random bits) names
 * the link in the event log and the secret (43 characters, 256 random bits) proves it. Only the secret's SHA-256
 * is stored, compared in constant time; the whole token is shown once, when the link is made.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

const TOKEN = /^([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/;

export const secretHashOf = (secret: string) => createHash("sha256").update(secret).digest("base64url");

export function newReviewToken(): { id: string; secret: string; token: string } {
  const id = randomBytes(12).toString("base64url");
  const secret = randomBytes(32).toString("base64url");
  return { id, secret, token: `${id}.${secret}` };
}

/** The token's parts, or undefined when it is not of the shape the node makes (then nothing is looked up). */
export function parseReviewToken(token: string): { id: string; secret: string } | undefined {
  const match = TOKEN.exec(token);
  return match?.[1] && match[2] ? { id: match[1], secret: match[2] } : undefined;
}

/**
 * `text` (a URL, a log line) with every reviewer link's secret taken out, the link still named by its id:
 * `/review/<id>.<secret>` becomes `/review/<id>.*`. Under `/review/` nothing past the id's 16 characters of the
 * first segment is kept, however it is encoded or mangled; elsewhere, anything shaped like a token loses its secret.
 */
export function withoutReviewSecret(text: string): string {
  if (!text.includes("/review/") && !SECRET_SHAPED.test(text)) return text;
  return text
    .replace(UNDER_REVIEW, (_whole, kept: string, dropped: string) => (dropped === "" ? kept : `${kept}.*`))
    .replace(SECRET_SHAPED_ALL, "$1.*");
}

/** `/review/` (its slash maybe doubled), the id's 16 characters kept, the rest of that segment dropped. */
const UNDER_REVIEW = /(\/review\/+[A-Za-z0-9_-]{0,16})([^/?#\s"'\\]*)/g;
/** A token anywhere: 16 id characters, a dot (maybe encoded), 43 or more secret characters. */
const SECRET_SHAPED = /([A-Za-z0-9_-]{16})(?:\.|%2[Ee])[A-Za-z0-9_-]{43}/;
const SECRET_SHAPED_ALL = new RegExp(SECRET_SHAPED.source.replace("{43}", "{43,}"), "g");

/** Whether `secret` is the one whose hash is `storedHash`, in time independent of where they differ. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const given = Buffer.from(secretHashOf(secret));
  const stored = Buffer.from(storedHash);
  return given.length === stored.length && timingSafeEqual(given, stored);
}
