/**
 * DataONE DateTime values. DataONE writes xs:dateTime in UTC with millisecond precision
 * ("2024-01-02T03:04:05.678Z"); readers accept any ISO 8601 / xs:dateTime form. A date read with microseconds
 * (GMN writes them: "2026-12-05T02:19:01.762874") keeps them as a PreciseDate and is written with them again, so
 * a record copied from another node states the dates that node states.
 */

/** A Date that also holds the microseconds (0-999) after its millisecond, as the text it was read from gave. */
export class PreciseDate extends Date {
  constructor(
    ms: number,
    readonly microseconds: number,
  ) {
    super(ms);
  }
}

/** The microseconds after the millisecond `date` holds (0 for a plain Date). */
export const microsecondsOf = (date: Date | undefined): number =>
  date instanceof PreciseDate ? date.microseconds : 0;

/** A Date at `ms`, with `microseconds` after it when there are any. */
export const dateWithMicroseconds = (ms: number, microseconds: number): Date =>
  microseconds > 0 ? new PreciseDate(ms, microseconds) : new Date(ms);

/** `YYYY-MM-DDTHH:MM:SS.sssZ` (UTC, milliseconds), or `.ssssssZ` for a date that holds microseconds. */
export function formatDateTime(date: Date): string {
  const year = date.getUTCFullYear();
  if (!Number.isFinite(date.getTime()) || year < 1 || year > 9999) {
    throw new RangeError(`Date ${String(date)} cannot be written as an xs:dateTime.`);
  }
  const micro = microsecondsOf(date);
  const iso = date.toISOString();
  return micro > 0 ? `${iso.slice(0, -1)}${String(micro).padStart(3, "0")}Z` : iso;
}

// ISO 8601: YYYY-MM-DD, then optionally THH:MM[:SS[.fraction]] and a zone (Z, +HH:MM, +HHMM or +HH).
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;
// xs:dateTime lexical form: "YYYY-MM-DDThh:mm:ss(.s+)?(zzzzzz)?" where zzzzzz is Z or (+|-)hh:mm.
const XSD_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})?$/;

export interface ParseDateOptions {
  /** Only the xs:dateTime lexical form (used for XML content). Default: any ISO 8601 date or date-time. */
  xsd?: boolean;
}

/**
 * Read an ISO 8601 date-time: with or without a zone offset (no zone means UTC), with any number of fractional
 * second digits (kept to the microsecond, truncated); a bare date is midnight UTC. Returns undefined when the
 * text is not a valid instant, so callers raise their own exception.
 */
export function parseDateTime(text: string, options: ParseDateOptions = {}): Date | undefined {
  const m = (options.xsd ? XSD_DATE_TIME : ISO_8601).exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h ?? 0);
  const minute = Number(mi ?? 0);
  const second = Number(s ?? 0);
  const millis = fraction ? Number(fraction.slice(0, 3).padEnd(3, "0")) : 0;
  const micros = fraction && fraction.length > 3 ? Number(fraction.slice(3, 6).padEnd(3, "0")) : 0;
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  // xs:dateTime: "24:00:00 is allowed and means the first instant of the next day".
  const endOfDay = hour === 24 && minute === 0 && second === 0 && !/[1-9]/.test(fraction ?? "");
  if ((hour > 23 && !endOfDay) || minute > 59 || second > 59) return undefined;
  const offset = zoneOffsetMinutes(zone);
  if (offset === undefined) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return dateWithMicroseconds(date.getTime() - offset * 60_000, endOfDay ? 0 : micros);
}

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

/** Minutes east of UTC; undefined for an out-of-range offset ("-14:00 .. +14:00"). */
function zoneOffsetMinutes(zone: string | undefined): number | undefined {
  if (zone === undefined || zone === "Z") return 0;
  const digits = zone.slice(1).replace(":", "");
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (minutes > 59 || hours * 60 + minutes > 14 * 60) return undefined;
  return (zone.startsWith("-") ? -1 : 1) * (hours * 60 + minutes);
}
