/**
 * Query parameters. "Path parameters and query parameters are URL-escaped" (API text, Transport 1); query
 * strings are form-encoded (`+` is a space). Bad values give InvalidRequest naming the parameter.
 */
import { InvalidRequest } from "../errors/exceptions.ts";
import { parseDateTime } from "../types/index.ts";

export type Query = Record<string, string | string[] | undefined>;

/** Parse a query string as application/x-www-form-urlencoded; repeated keys become arrays. */
export function parseQueryString(text: string): Query {
  const out: Query = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const previous = out[key];
    if (previous === undefined) out[key] = value;
    else out[key] = Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  return out;
}

/**
 * U+0000 cannot be carried by XML, so no identifier, format or subject holds it, and PostgreSQL refuses it in
 * text: a parameter holding it is a bad request, refused before any lookup.
 */
export function refuseNul(name: string, value: string): void {
  if (value.includes("\u0000")) {
    throw new InvalidRequest(`Parameter ${name} contains a NUL character (%00), which no value can hold.`);
  }
}

/** Every parameter of a query string checked with refuseNul. */
export function refuseNulParams(query: Query): void {
  for (const [name, value] of Object.entries(query)) {
    refuseNul(name, name);
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) refuseNul(name, v);
  }
}

export function stringParam(query: Query, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[0] : value;
}

export function integerParam(
  query: Query,
  name: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const text = stringParam(query, name);
  if (text === undefined || text === "") return fallback;
  if (!/^[+-]?\d+$/.test(text.trim()))
    throw new InvalidRequest(`Parameter ${name}="${text}" is not an integer.`);
  const value = Number(text);
  if (value < min || value > max) {
    throw new InvalidRequest(`Parameter ${name}=${text} is out of range (${min} to ${max}).`);
  }
  return value;
}

export function dateParam(query: Query, name: string): Date | undefined {
  const text = stringParam(query, name);
  if (text === undefined || text === "") return undefined;
  const date = parseDateTime(text);
  if (!date) throw new InvalidRequest(`Parameter ${name}="${text}" is not an ISO 8601 date-time.`);
  return date;
}

export function booleanParam(query: Query, name: string): boolean | undefined {
  const text = stringParam(query, name);
  if (text === undefined || text === "") return undefined;
  const lower = text.trim().toLowerCase();
  if (lower === "true" || lower === "1") return true;
  if (lower === "false" || lower === "0") return false;
  throw new InvalidRequest(`Parameter ${name}="${text}" is not a boolean (true or false).`);
}

/** fromDate/toDate: "invalid date range" is InvalidRequest. */
export function dateRange(query: Query): { fromDate?: Date; toDate?: Date } {
  const fromDate = dateParam(query, "fromDate");
  const toDate = dateParam(query, "toDate");
  if (fromDate && toDate && fromDate.getTime() > toDate.getTime()) {
    throw new InvalidRequest("fromDate is later than toDate.");
  }
  return { ...(fromDate ? { fromDate } : {}), ...(toDate ? { toDate } : {}) };
}
