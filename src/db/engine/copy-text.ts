/** Values in COPY's text format (one line a row, tab between columns). */

/** A value as COPY's text format reads it. */
export function copyField(value: string | number | null): string {
  if (value === null) return "\\N";
  if (typeof value === "number") return String(value);
  return /[\\\t\n\r]/.test(value)
    ? value.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r")
    : value;
}

/** A text[] literal. */
export function textArray(list: string[]): string {
  return `{${list.map((t) => `"${t.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`).join(",")}}`;
}
