/**
 * What the search engine's memory (src/search/memory/) reads: the documents a condition matches (all, in
 * chunks, or among some rewritten since), and the values of fields (some documents'; all of a field's:
 * field-reads.ts).
 */
import { sql } from "kysely";
import type { Condition } from "./conditions.ts";
import type { SearchDb } from "./index-store.ts";

/** PIDs per query when rechecking changed documents (one parameter: an array, or a JSON list on SQLite). */
const BATCH = 5000;

export interface FieldValueRow {
  pid: string;
  field: string;
  value: string;
  num: number | string | null;
}

/** `pids` as one parameter for `in`: an array on PostgreSQL, a JSON list on SQLite (no limit on parameters). */
function pidList(db: SearchDb, pids: string[]) {
  return db.dialect === "postgres"
    ? sql`(select unnest(${pids}::text[]))`
    : sql`(select value from json_each(${JSON.stringify(pids)}))`;
}

/** A key for `condition`: its SQL and parameters. */
export function conditionKey(db: SearchDb, condition: Condition): string {
  const compiled = condition.compile(db.kysely);
  return `${compiled.sql}\u0000${JSON.stringify(compiled.parameters)}`;
}

/** PIDs per chunk when reading every document a condition matches (about 5 MB of JSON a chunk). */
export const PID_CHUNK = 100_000;

/**
 * Every document matching `where`, in chunks of at most `chunk` PIDs, chunk after chunk in PID order (keyset
 * pages): the reader holds one chunk at a time, whatever the number of documents.
 */
export async function* matchingPidChunks(
  db: SearchDb,
  where: Condition,
  chunk = PID_CHUNK,
): AsyncGenerator<string[]> {
  let after: string | undefined;
  for (;;) {
    const from = after === undefined ? sql`` : sql`and d.pid > ${after}`;
    const page = sql`select d.pid from search_docs d where (${where}) ${from} order by d.pid limit ${chunk}`;
    // One row holding a JSON array (much cheaper to receive than a row per document), and the chunk's last PID
    // as the database orders them (the next chunk's start, whatever order the aggregate kept).
    const aggregate = db.dialect === "postgres" ? sql`json_agg(s.pid)` : sql`json_group_array(s.pid)`;
    const list = sql<{
      pids: string[] | string | null;
      last: string | null;
    }>`select ${aggregate} as pids, max(s.pid) as last from (${page}) s`;
    const row = (await list.execute(db.kysely)).rows[0];
    const pids: string[] = typeof row?.pids === "string" ? JSON.parse(row.pids) : (row?.pids ?? []);
    if (pids.length > 0) yield pids;
    if (pids.length < chunk || row?.last == null) return;
    after = row.last;
  }
}

/** Those of `pids` whose documents match `where`. */
export async function matchingAmong(db: SearchDb, pids: string[], where: Condition): Promise<string[]> {
  const matching: string[] = [];
  for (let i = 0; i < pids.length; i += BATCH) {
    const batch = pids.slice(i, i + BATCH);
    const rows = await sql<{ pid: string }>`select d.pid from search_docs d
      where d.pid in ${pidList(db, batch)} and (${where})`.execute(db.kysely);
    for (const { pid } of rows.rows) matching.push(pid);
  }
  return matching;
}

/** The values of these fields of these documents. */
export async function valuesOf(db: SearchDb, pids: string[], fields: string[]): Promise<FieldValueRow[]> {
  const out: FieldValueRow[] = [];
  for (let i = 0; i < pids.length; i += BATCH) {
    const rows = await sql<FieldValueRow>`select pid, field, value, num from search_values
      where pid in ${pidList(db, pids.slice(i, i + BATCH))} and field in (${sql.join(fields)})`.execute(
      db.kysely,
    );
    for (const row of rows.rows) out.push(row);
  }
  return out;
}
