/**
 * OAI-PMH UTCdatetime values: "YYYY-MM-DD" or "YYYY-MM-DDThh:mm:ssZ" (section 3.3.1). This repository's
 * granularity is seconds; a day-granular argument is taken too, as the protocol requires.
 */
import { OaiError } from "./errors.ts";

export type Granularity = "day" | "seconds";

export interface ParsedDate {
  /** Milliseconds since the epoch of the first instant the value names. */
  start: number;
  /** Milliseconds since the epoch just after the last instant it names (the next second or day). */
  end: number;
  granularity: Granularity;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const SECONDS = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

/** A from/until argument; badArgument when it is neither form or names no real instant. */
export function parseOaiDate(name: string, value: string): ParsedDate {
  const match = SECONDS.exec(value) ?? DAY.exec(value);
  if (!match) {
    throw new OaiError(
      "badArgument",
      `The argument ${name} must be a UTC date as YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ, not "${value}".`,
    );
  }
  const [year, month, day, hour = 0, minute = 0, second = 0] = match.slice(1).map(Number) as number[];
  const start = Date.UTC(year as number, (month as number) - 1, day, hour, minute, second);
  const check = new Date(start);
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== (month as number) - 1 ||
    check.getUTCDate() !== day ||
    check.getUTCHours() !== hour ||
    check.getUTCMinutes() !== minute ||
    check.getUTCSeconds() !== second
  ) {
    throw new OaiError("badArgument", `The argument ${name} is not a real date and time: "${value}".`);
  }
  const granularity: Granularity = match.length > 4 ? "seconds" : "day";
  return { start, end: start + (granularity === "day" ? 86_400_000 : 1000), granularity };
}

/** A datestamp at seconds granularity (milliseconds dropped). */
export function formatOaiDate(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The start of the second holding `ms`. */
export function wholeSecond(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}
