/**
 * pino's JSON lines as readable text, for a terminal or the journal (setting `logFormat: text`):
 * `2026-12-05T05:10:00.123Z INFO  request method=GET url=/mn/v2/object/x status=200 ms=1.2`. The time, the level
 * and the message first, then every other field as key=value (objects as JSON, an error as its type and
 * message, its stack on the lines after). A value with spaces, quotes or control characters is quoted as JSON, so
 * that nothing a client sent (a URL, an identifier) can start a line of its own.
 */
import type { DestinationStream } from "pino";

const LEVELS: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO ",
  40: "WARN ",
  50: "ERROR",
  60: "FATAL",
};
/** pino's own fields, shown in front or not at all. */
const OWN = new Set(["level", "time", "msg", "pid", "hostname", "err"]);

export function textLines(out: DestinationStream): DestinationStream {
  return { write: (line: string) => out.write(textLine(line)) };
}

export function textLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = typeof entry.time === "number" ? new Date(entry.time).toISOString() : "";
  const level = LEVELS[Number(entry.level)] ?? String(entry.level);
  const parts = [time, level, quoted(String(entry.msg ?? ""), false)];
  for (const [key, value] of Object.entries(entry)) {
    if (OWN.has(key) || value === undefined) continue;
    parts.push(`${key}=${typeof value === "string" ? quoted(value, true) : JSON.stringify(value)}`);
  }
  const err = entry.err as { type?: string; message?: string; stack?: string } | undefined;
  if (err) parts.push(`err=${quoted(`${err.type ?? "Error"}: ${err.message ?? ""}`, true)}`);
  const stack = err?.stack ? `\n${indent(err.stack)}` : "";
  return `${parts.join(" ")}${stack}\n`;
}

/** As it is when plain; as a JSON string when it holds control characters (or, for a field, spaces or quotes). */
function quoted(text: string, field: boolean): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
  const plain = field ? /^[^\s"\u0000-\u001f\u007f]*$/ : /^[^\u0000-\u001f\u007f]*$/;
  return plain.test(text) && text !== "" ? text : JSON.stringify(text);
}

/** A stack's lines below the entry, each indented (its first line, the message, is on the entry already). */
function indent(stack: string): string {
  return stack
    .split("\n")
    .slice(1)
    .map((line) => `    ${line.trim()}`)
    .join("\n");
}
