/**
 * The Node document's harvest schedule: "attributes hour, mday, min, mon, sec, wday, year; crontab-style values
 * such as * , ? and 0/3" (Quartz cron fields). Each field takes `*`, `?` (no constraint), numbers, names
 * (JAN-DEC, SUN-SAT), ranges `a-b`, lists `a,b`, and steps `a/n` or `a-b/n`. Days of the week count from
 * SUN=1 as in Quartz. When both day fields are restricted, a day matching either one is taken (as crontab does;
 * Quartz refuses that form). Times are UTC.
 */
import { type D1Error, InvalidRequest } from "../errors/exceptions.ts";
import type { Schedule } from "../types/node.ts";

interface FieldSpec {
  name: keyof Schedule;
  min: number;
  max: number;
  names?: readonly string[];
}

const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const DAYS = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

const FIELDS = {
  sec: { name: "sec", min: 0, max: 59 },
  min: { name: "min", min: 0, max: 59 },
  hour: { name: "hour", min: 0, max: 23 },
  mday: { name: "mday", min: 1, max: 31 },
  mon: { name: "mon", min: 1, max: 12, names: MONTHS },
  wday: { name: "wday", min: 1, max: 7, names: DAYS },
  year: { name: "year", min: 1970, max: 2199 },
} as const satisfies Record<keyof Schedule, FieldSpec>;

/** A parsed field: the allowed values, or undefined for "any" (`*` or `?`). */
type Allowed = ReadonlySet<number> | undefined;

export interface ParsedSchedule {
  sec: Allowed;
  min: Allowed;
  hour: Allowed;
  mday: Allowed;
  mon: Allowed;
  wday: Allowed;
  year: Allowed;
}

function bad(spec: FieldSpec, text: string, why: string): D1Error {
  return new InvalidRequest(`Schedule ${spec.name}="${text}" is not a crontab entry: ${why}.`);
}

function value(spec: FieldSpec, text: string, whole: string): number {
  const named = spec.names?.indexOf(text.toUpperCase()) ?? -1;
  if (named >= 0) return named + spec.min;
  if (!/^\d+$/.test(text)) throw bad(spec, whole, `"${text}" is not a number`);
  const number = Number(text);
  if (number < spec.min || number > spec.max) {
    throw bad(spec, whole, `${number} is outside ${spec.min}-${spec.max}`);
  }
  return number;
}

function parseField(spec: FieldSpec, text: string): Allowed {
  const entry = text.trim();
  if (entry === "*" || entry === "?") return undefined;
  if (entry === "") throw bad(spec, text, "it is empty");
  const allowed = new Set<number>();
  for (const part of entry.split(",")) {
    const [range = "", stepText, ...extra] = part.split("/");
    if (extra.length > 0) throw bad(spec, text, `"${part}" has more than one step`);
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1)
      throw bad(spec, text, `the step "${stepText}" is not a positive number`);
    let low: number;
    let high: number;
    if (range === "*" || range === "?") {
      low = spec.min;
      high = spec.max;
    } else if (range.includes("-")) {
      const [from = "", to = ""] = range.split("-");
      low = value(spec, from, text);
      high = value(spec, to, text);
      if (low > high) throw bad(spec, text, `the range "${range}" runs backwards`);
    } else {
      low = value(spec, range, text);
      high = stepText === undefined ? low : spec.max; // "0/3": from 0 every 3
    }
    for (let v = low; v <= high; v += step) allowed.add(v);
  }
  return allowed;
}

/** Parses every field; InvalidRequest names the first bad one. */
export function parseSchedule(schedule: Schedule): ParsedSchedule {
  const parsed = {} as Record<keyof Schedule, Allowed>;
  for (const spec of Object.values(FIELDS)) parsed[spec.name] = parseField(spec, schedule[spec.name] ?? "*");
  return parsed;
}

const fits = (allowed: Allowed, v: number) => allowed === undefined || allowed.has(v);

function dayFits(parsed: ParsedSchedule, date: Date): boolean {
  const byMonth = fits(parsed.mday, date.getUTCDate());
  const byWeek = fits(parsed.wday, date.getUTCDay() + 1);
  if (parsed.mday !== undefined && parsed.wday !== undefined) return byMonth || byWeek;
  return byMonth && byWeek;
}

function isParsed(schedule: Schedule | ParsedSchedule): schedule is ParsedSchedule {
  return typeof schedule.sec !== "string";
}

/** The first instant strictly after `after` (whole seconds, UTC) the schedule names; undefined if none is left. */
export function nextRun(schedule: Schedule | ParsedSchedule, after: Date): Date | undefined {
  const p = isParsed(schedule) ? schedule : parseSchedule(schedule);
  const t = new Date(Math.floor(after.getTime() / 1000) * 1000 + 1000);
  // Walk from the coarsest field down, jumping to the start of the next unit whenever one does not fit.
  while (t.getUTCFullYear() <= FIELDS.year.max) {
    if (!fits(p.year, t.getUTCFullYear())) {
      t.setUTCFullYear(t.getUTCFullYear() + 1, 0, 1);
      t.setUTCHours(0, 0, 0, 0);
    } else if (!fits(p.mon, t.getUTCMonth() + 1)) {
      t.setUTCMonth(t.getUTCMonth() + 1, 1);
      t.setUTCHours(0, 0, 0, 0);
    } else if (!dayFits(p, t)) {
      t.setUTCDate(t.getUTCDate() + 1);
      t.setUTCHours(0, 0, 0, 0);
    } else if (!fits(p.hour, t.getUTCHours())) {
      t.setUTCHours(t.getUTCHours() + 1, 0, 0, 0);
    } else if (!fits(p.min, t.getUTCMinutes())) {
      t.setUTCMinutes(t.getUTCMinutes() + 1, 0, 0);
    } else if (!fits(p.sec, t.getUTCSeconds())) {
      t.setUTCSeconds(t.getUTCSeconds() + 1, 0);
    } else {
      return t;
    }
  }
  return undefined;
}
