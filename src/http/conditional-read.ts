/**
 * HTTP conditional and partial reads of object bytes (RFC 9110 sections 13 and 14): which answer a GET of an
 * object gets from its validators and the request's If-None-Match, If-Modified-Since, If-Range and Range headers.
 * Freshness follows the `fresh` package (If-None-Match first, If-Modified-Since only without it); Range headers
 * are parsed by `range-parser`.
 */
import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import fresh from "fresh";
import parseRange from "range-parser";

/** A byte range of an object, `end` inclusive. */
export interface ByteRange {
  start: number;
  end: number;
}

/** What identifies the bytes: a strong entity tag (absent when the node holds no bytes) and Last-Modified. */
export interface Validators {
  etag?: string;
  /** An HTTP-date. */
  lastModified?: string;
}

export type ReadAnswer =
  /** "304 (Not Modified)": the caller's copy is current; no content. */
  | { status: 304 }
  /** "416 (Range Not Satisfiable)", with `Content-Range: bytes *\/size`. */
  | { status: 416 }
  /** "206 (Partial Content)" for one range. */
  | { status: 206; range: ByteRange }
  /** The whole object. */
  | { status: 200 };

/**
 * The answer to a GET (or HEAD, `ranges: false`) of an object of `size` bytes. A Range header that is not
 * `bytes=...`, or that does not parse, is ignored ("A server MAY ignore the Range header field"), as is one
 * whose If-Range does not match. Overlapping and adjacent ranges are combined; several ranges that remain are
 * answered with the whole object (200), never multipart/byteranges.
 */
export function answerRead(
  headers: IncomingHttpHeaders,
  validators: Validators,
  size: number,
  ranges = true,
): ReadAnswer {
  if (isCurrent(headers, validators)) return NOT_MODIFIED;
  const range = headers.range;
  if (!ranges || typeof range !== "string" || !ifRangeHolds(headers["if-range"], validators)) return WHOLE;
  const clamped = clampSuffixes(range, size);
  if (clamped === undefined) return WHOLE;
  const parsed = parseRange(size, clamped, { combine: true });
  if (parsed === -2 || (parsed !== -1 && parsed.type !== "bytes")) return WHOLE;
  // "the server SHOULD send a 416 ... when the set of ranges requested has been rejected" as unsatisfiable.
  if (parsed === -1 || parsed.length === 0) return UNSATISFIABLE;
  const [only] = parsed;
  if (parsed.length > 1 || !only) return WHOLE;
  // A range that covers the whole object is still a range: 206 says so.
  return { status: 206, range: { start: only.start, end: only.end } };
}

/**
 * RFC 9110 section 14.1.1: "If the selected representation is shorter than the specified suffix-length, the entire
 * representation is used" (range-parser rejects such a suffix as unsatisfiable): each suffix range `-N` becomes
 * `-min(N, size)`. Undefined when the object is empty and a suffix asks for bytes: satisfiable (14.1.2) but with
 * no byte to name in a Content-Range, so the whole, empty, object is the answer.
 */
function clampSuffixes(range: string, size: number): string | undefined {
  const equals = range.indexOf("=");
  if (equals < 0) return range;
  let emptyWhole = false;
  const specs = range
    .slice(equals + 1)
    .split(",")
    .map((spec) => {
      const suffix = /^\s*-\s*(\d+)\s*$/.exec(spec);
      if (!suffix?.[1]) return spec;
      const length = Number(suffix[1]);
      if (length > 0 && size === 0) emptyWhole = true;
      return `-${Math.min(length, size)}`;
    });
  return emptyWhole ? undefined : `${range.slice(0, equals + 1)}${specs.join(",")}`;
}

const WHOLE: ReadAnswer = Object.freeze({ status: 200 });
const NOT_MODIFIED: ReadAnswer = Object.freeze({ status: 304 });
const UNSATISFIABLE: ReadAnswer = Object.freeze({ status: 416 });

/** Whether the caller's copy is current by its If-None-Match or If-Modified-Since (none: it has no copy). */
function isCurrent(headers: IncomingHttpHeaders, validators: Validators): boolean {
  const noneMatch = headers["if-none-match"];
  const modifiedSince = headers["if-modified-since"];
  if (noneMatch === undefined && modifiedSince === undefined) return false;
  const current: Record<string, string> = {};
  if (validators.lastModified) current["last-modified"] = validators.lastModified;
  if (validators.etag) current.etag = validators.etag;
  // "the origin server SHOULD respond with a 304 (Not Modified) status code" for a GET/HEAD whose condition fails.
  // The package treats `Cache-Control: no-cache` as a forced reload, but that directive asks caches to revalidate,
  // which is what a conditional request to the origin does: fetch() adds it to every conditional request.
  return fresh({ "if-none-match": noneMatch, "if-modified-since": modifiedSince }, current);
}

/**
 * If-Range: "a recipient MUST ignore the Range header field" when the validator does not match. An entity tag
 * matches by the strong comparison (a weak tag never does); a date only when it equals Last-Modified exactly.
 */
function ifRangeHolds(value: string | string[] | undefined, validators: Validators): boolean {
  if (value === undefined) return true;
  if (typeof value !== "string") return false;
  const condition = value.trim();
  if (condition.startsWith('"') || condition.startsWith("W/")) {
    return validators.etag !== undefined && condition === validators.etag;
  }
  const date = Date.parse(condition);
  return !Number.isNaN(date) && date === Date.parse(validators.lastModified ?? "");
}

/** `Content-Range` of a 206: "bytes first-last/complete-length". */
export function contentRange(range: ByteRange, size: number): string {
  return `bytes ${range.start}-${range.end}/${size}`;
}

/** `Content-Range` of a 416: "bytes *\/complete-length". */
export function unsatisfiedRange(size: number): string {
  return `bytes */${size}`;
}

/** A strong entity tag of a body made whole before it is sent (a view page): `"sha256-<hex>"` of its bytes. */
export function contentTag(body: string | Buffer): string {
  return `"sha256-${createHash("sha256").update(body).digest("hex")}"`;
}
