/**
 * Stateless resumption tokens: the whole state of an incomplete list travels in the token, so a token outlives
 * a restart of the node and needs no storage. A list token is a keyset cursor: the (datestamp, identifier) of
 * the last record sent, with the list's arguments and its frozen upper bound (the harvest's first request),
 * so records that change meanwhile move past the bound instead of shifting the pages (the next incremental
 * harvest, from= that request's responseDate, sees them). Tokens are base64url JSON; anything else, and an
 * expired token, is badResumptionToken.
 */
import { OaiError } from "./errors.ts";

/** How long a token stays valid (its expirationDate). */
export const TOKEN_LIFETIME_MS = 24 * 3600 * 1000;

export interface ListToken {
  kind: "ListIdentifiers" | "ListRecords";
  metadataPrefix: string;
  set?: string;
  /** datestamp >= from (ms). */
  from?: number;
  /** datestamp < until (ms): the list's bound, fixed at its first request. */
  until: number;
  /** The key of the last record sent. */
  after: readonly [number, string];
  /** Records sent before the next page. */
  cursor: number;
  completeListSize: number;
  expires: number;
}

export interface SetsToken {
  kind: "ListSets";
  /** The last package set's map PID sent. */
  after: string;
  cursor: number;
  expires: number;
}

export type ResumptionToken = ListToken | SetsToken;

const VERSION = 1;

export function encodeToken(token: ResumptionToken): string {
  const fields =
    token.kind === "ListSets"
      ? [VERSION, "S", token.after, token.cursor, token.expires]
      : [
          VERSION,
          token.kind === "ListRecords" ? "R" : "I",
          token.metadataPrefix,
          token.set ?? null,
          token.from ?? null,
          token.until,
          token.after[0],
          token.after[1],
          token.cursor,
          token.completeListSize,
          token.expires,
        ];
  return Buffer.from(JSON.stringify(fields), "utf8").toString("base64url");
}

/** The token's state for `verb`; badResumptionToken when it is not one of this repository's, or expired. */
export function decodeToken(text: string, verb: ResumptionToken["kind"], now: number): ResumptionToken {
  const token = parse(text);
  if (!token || token.kind !== verb) {
    throw new OaiError(
      "badResumptionToken",
      `The resumptionToken is not one this repository issued for ${verb}.`,
    );
  }
  if (token.expires <= now) {
    throw new OaiError(
      "badResumptionToken",
      `The resumptionToken expired at ${new Date(token.expires).toISOString()}; start the list again.`,
    );
  }
  return token;
}

const isCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
const isText = (value: unknown): value is string => typeof value === "string";

function parse(text: string): ResumptionToken | undefined {
  if (!/^[A-Za-z0-9_-]{1,4096}$/.test(text)) return undefined;
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (!Array.isArray(fields) || fields[0] !== VERSION) return undefined;
  if (fields[1] === "S" && fields.length === 5) {
    const [, , after, cursor, expires] = fields;
    if (!isText(after) || !isCount(cursor) || !isCount(expires)) return undefined;
    return { kind: "ListSets", after, cursor, expires };
  }
  if ((fields[1] !== "I" && fields[1] !== "R") || fields.length !== 11) return undefined;
  const [, kind, prefix, set, from, until, afterStamp, afterPid, cursor, size, expires] = fields;
  const valid =
    isText(prefix) &&
    (set === null || isText(set)) &&
    (from === null || isCount(from)) &&
    isCount(until) &&
    isCount(afterStamp) &&
    isText(afterPid) &&
    isCount(cursor) &&
    isCount(size) &&
    isCount(expires);
  if (!valid) return undefined;
  return {
    kind: kind === "R" ? "ListRecords" : "ListIdentifiers",
    metadataPrefix: prefix,
    ...(set === null ? {} : { set }),
    ...(from === null ? {} : { from }),
    until,
    after: [afterStamp, afterPid],
    cursor,
    completeListSize: size,
    expires,
  };
}
