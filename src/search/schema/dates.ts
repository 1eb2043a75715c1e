/**
 * Dates as Solr writes them (ISO 8601 UTC, milliseconds only when not zero), lenient reading of the dates
 * science metadata holds ("2012", "2012-05", "2012-05-01", full timestamps), and Solr date math for queries
 * (NOW, NOW-1YEAR, NOW/DAY, 2020-01-01T00:00:00Z+1MONTH).
 */

export function formatSolrDate(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith(".000Z") ? `${iso.slice(0, -5)}Z` : iso;
}

/** A metadata date as milliseconds, or undefined when it is no date. Dates without a zone are UTC. */
export function readLenientDate(text: string): number | undefined {
  const value = text.trim();
  let m = /^(-?\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$/.exec(value);
  if (m) {
    const ms = Date.UTC(Number(m[1]), Number(m[2] ?? 1) - 1, Number(m[3] ?? 1));
    return Number.isNaN(ms) ? undefined : ms;
  }
  m = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(value);
  if (m) {
    const ms = Date.parse(m[3] ? value.replace(" ", "T") : `${value.replace(" ", "T")}Z`);
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}

const UNITS: Record<string, "year" | "month" | "day" | "hour" | "minute" | "second" | "milli"> = {
  YEAR: "year",
  YEARS: "year",
  MONTH: "month",
  MONTHS: "month",
  DAY: "day",
  DAYS: "day",
  DATE: "day",
  HOUR: "hour",
  HOURS: "hour",
  MINUTE: "minute",
  MINUTES: "minute",
  SECOND: "second",
  SECONDS: "second",
  MILLI: "milli",
  MILLIS: "milli",
};

/** A query date: an ISO timestamp or NOW, followed by date math. Undefined when it is not one. */
export function readQueryDate(text: string, now = Date.now()): number | undefined {
  const m = /^(NOW|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)((?:[+\-/]\d*[A-Z]+)*)$/.exec(text.trim());
  if (!m?.[1]) return readLenientDate(text);
  let date = new Date(m[1] === "NOW" ? now : Date.parse(m[1]));
  for (const step of (m[2] ?? "").match(/[+\-/]\d*[A-Z]+/g) ?? []) {
    const op = step[0];
    const amount = Number(step.slice(1).replace(/[A-Z]+$/, "") || "0");
    const unit = UNITS[step.replace(/^[+\-/]\d*/, "")];
    if (!unit) return undefined;
    date = op === "/" ? roundDown(date, unit) : shift(date, unit, op === "-" ? -amount : amount);
  }
  return date.getTime();
}

function shift(date: Date, unit: string, n: number): Date {
  const d = new Date(date.getTime());
  if (unit === "year") d.setUTCFullYear(d.getUTCFullYear() + n);
  else if (unit === "month") d.setUTCMonth(d.getUTCMonth() + n);
  else if (unit === "day") d.setUTCDate(d.getUTCDate() + n);
  else if (unit === "hour") d.setUTCHours(d.getUTCHours() + n);
  else if (unit === "minute") d.setUTCMinutes(d.getUTCMinutes() + n);
  else if (unit === "second") d.setUTCSeconds(d.getUTCSeconds() + n);
  else d.setUTCMilliseconds(d.getUTCMilliseconds() + n);
  return d;
}

function roundDown(date: Date, unit: string): Date {
  const parts = [
    date.getUTCFullYear(),
    date.getUTCMonth(),
    date.getUTCDate(),
    date.getUTCHours(),
    date.getUTCMinutes(),
    date.getUTCSeconds(),
  ];
  const keep = ["year", "month", "day", "hour", "minute", "second"].indexOf(unit) + 1;
  if (keep === 0) return date;
  const [y = 0, mo = 0, d = 1, h = 0, mi = 0, s = 0] = parts.map((v, i) => (i < keep ? v : i === 2 ? 1 : 0));
  return new Date(Date.UTC(y, mo, d, h, mi, s));
}
