/**
 * PostgreSQL: a batch's new search_values rows by COPY (text format) instead of an INSERT of a JSON parameter:
 * the backend reads tab-separated lines instead of parsing JSON into records and running them through an
 * INSERT's executor. Only rows of documents that had none (postgres-write.ts: a fresh document has no values), so
 * no key can already be there. Needs the raw connection (pg-copy-streams), inside the caller's transaction.
 */
import { pipeline } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { copyField } from "../../db/engine/copy-text.ts";
import type { ValueRow } from "./postgres-write.ts";

const COPY_VALUES = "copy search_values (pid, field, value, num) from stdin";

/** One row as a line of COPY's text input. */
export function valueCopyLine(v: ValueRow): string {
  return `${copyField(v.pid)}\t${copyField(v.field)}\t${copyField(v.value)}\t${copyField(v.num)}\n`;
}

/** The rows as COPY's text input: one line a row. */
export function valuesCopyText(values: readonly ValueRow[]): string {
  let text = "";
  for (const v of values) text += valueCopyLine(v);
  return text;
}

/** COPY these rows on `client`, in the transaction it has open. */
export async function copyValues(client: pg.ClientBase, values: readonly ValueRow[]): Promise<void> {
  const stream = client.query(copyFrom(COPY_VALUES));
  await pipeline([valuesCopyText(values)], stream);
}
