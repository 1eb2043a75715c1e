/** Months as the usage counts keep them (yyyymm numbers, UTC) and as the answers write them ("YYYY-MM"). */

/** "YYYY-MM" of yyyymm. */
export function monthLabel(month: number): string {
  return `${Math.floor(month / 100)}-${String(month % 100).padStart(2, "0")}`;
}

/** The month after yyyymm. */
export function nextMonth(month: number): number {
  return month % 100 === 12 ? (Math.floor(month / 100) + 1) * 100 + 1 : month + 1;
}

/** Every month from `from` to `to`, both included. */
export function monthsBetween(from: number, to: number): number[] {
  const out: number[] = [];
  for (let month = from; month <= to; month = nextMonth(month)) out.push(month);
  return out;
}

/** yyyymm of a date in milliseconds, UTC. */
export function monthAt(ms: number): number {
  const date = new Date(ms);
  return date.getUTCFullYear() * 100 + date.getUTCMonth() + 1;
}

/** The last day (1-31) of yyyymm. */
export function lastDayOf(month: number): number {
  return new Date(Date.UTC(Math.floor(month / 100), month % 100, 0)).getUTCDate();
}

/** A month as a yyyymm when it is a real one from year 1900 to 9999, else undefined. */
export function validMonth(year: number, month: number): number | undefined {
  if (!Number.isInteger(year) || !Number.isInteger(month)) return undefined;
  if (year < 1900 || year > 9999 || month < 1 || month > 12) return undefined;
  return year * 100 + month;
}
