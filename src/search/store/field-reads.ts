/**
 * A whole field's values, for the search engine's memory (src/search/memory/columns.ts), in chunks (keyset
 * pages), each chunk one row holding JSON arrays (far cheaper to receive than a row per value).
 *
 * On PostgreSQL the heap of search_values is in write order, its key (field, value, pid) in value order: a read
 * of (pid, value, num) by the key fetches a heap page per row. So a field is read from an index alone: its
 * text values from the key when none of its rows has a number, its numbers from `search_values_num` (field,
 * num, pid) when all of them have one (the value is then the number's text, as the index writer made it:
 * `numberText`); a field mixing both is read by the key with the heap. On SQLite its index (field, value,
 * pid, num) covers the read (migration 0018): one read in that order.
 */
import { type RawBuilder, sql } from "kysely";
import type { SearchDb } from "./index-store.ts";

/** Values per chunk: a chunk is one query, its answer one row of JSON arrays. */
const CHUNK = 100_000;

/** Parallel arrays: document, value, number (`nums` undefined: no value has one). */
export interface FieldChunk {
  pids: string[];
  values: string[];
  nums: (number | null)[] | undefined;
}

/** Every value of `field`, in chunks of at most `chunk` values; `numberText` gives the text a number is indexed as. */
export async function* valuesOfField(
  db: SearchDb,
  field: string,
  numberText: (num: number) => string,
  chunk = CHUNK,
): AsyncGenerator<FieldChunk> {
  if (db.dialect === "sqlite") return yield* keyOrder(db, field, true, chunk);
  const numeric = await countOf(db, sql`field = ${field} and num is not null`);
  if (numeric === 0) return yield* keyOrder(db, field, false, chunk);
  if (numeric === (await countOf(db, sql`field = ${field}`)))
    return yield* numberOrder(db, field, numberText, chunk);
  return yield* keyOrder(db, field, true, chunk);
}

async function countOf(db: SearchDb, where: RawBuilder<unknown>): Promise<number> {
  const rows = await sql<{
    n: string | number;
  }>`select count(*) as n from search_values where ${where}`.execute(db.kysely);
  return Number(rows.rows[0]?.n ?? 0);
}

/** JSON arrays of `columns` over the rows of `from` (ordered, limited), decoded. */
async function arraysOf<T extends Record<string, unknown[]>>(
  db: SearchDb,
  columns: (keyof T & string)[],
  from: RawBuilder<unknown>,
): Promise<T> {
  const agg = db.dialect === "postgres" ? "json_agg" : "json_group_array";
  const list = sql.join(columns.map((c) => sql`${sql.raw(agg)}(${sql.ref(`s.${c}`)}) as ${sql.ref(c)}`));
  const row = (await sql<Record<string, unknown>>`select ${list} from (${from}) s`.execute(db.kysely))
    .rows[0];
  const out: Record<string, unknown[]> = {};
  for (const c of columns) {
    const value = row?.[c];
    out[c] = typeof value === "string" ? JSON.parse(value) : ((value as unknown[] | null) ?? []);
  }
  return out as T;
}

/** In (field, value, pid) order: values and documents, with the numbers when `withNums` (PostgreSQL: heap reads). */
async function* keyOrder(
  db: SearchDb,
  field: string,
  withNums: boolean,
  chunk: number,
): AsyncGenerator<FieldChunk> {
  const columns: ("value" | "pid" | "num")[] = withNums ? ["value", "pid", "num"] : ["value", "pid"];
  let after: { value: string; pid: string } | undefined;
  for (;;) {
    const from = after ? sql`and (value, pid) > (${after.value}, ${after.pid})` : sql``;
    const page = await arraysOf<{ value: string[]; pid: string[]; num?: (number | null)[] }>(
      db,
      columns,
      sql`select ${sql.join(columns.map((c) => sql.ref(c)))} from search_values where field = ${field} ${from}
        order by value, pid limit ${chunk}`,
    );
    const count = page.pid.length;
    if (count > 0) yield { pids: page.pid, values: page.value, nums: page.num };
    if (count < chunk) return;
    after = { value: page.value[count - 1] as string, pid: page.pid[count - 1] as string };
  }
}

/** By `search_values_num` (field, num, pid): numbers and documents, the values their text. */
async function* numberOrder(
  db: SearchDb,
  field: string,
  numberText: (num: number) => string,
  chunk: number,
): AsyncGenerator<FieldChunk> {
  let after: { num: number; pid: string } | undefined;
  for (;;) {
    const from = after ? sql`and (num, pid) > (${after.num}, ${after.pid})` : sql``;
    const page = await arraysOf<{ num: number[]; pid: string[] }>(
      db,
      ["num", "pid"],
      sql`select num, pid from search_values where field = ${field} and num is not null ${from}
        order by num, pid limit ${chunk}`,
    );
    const count = page.pid.length;
    if (count > 0) yield { pids: page.pid, values: page.num.map(numberText), nums: page.num };
    if (count < chunk) return;
    after = { num: page.num[count - 1] as number, pid: page.pid[count - 1] as string };
  }
}
