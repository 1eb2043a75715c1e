/**
 * The search engine's reads over the documents a condition matches (search_docs as `d`, conditions.ts): the
 * count, the page in a given order, the group of each document, and whether the index is large.
 */
import { sql } from "kysely";
import type { Condition } from "./conditions.ts";
import { onDocs } from "./docs-scan.ts";
import type { SearchDb } from "./index-store.ts";

export async function countMatching(db: SearchDb, where: Condition): Promise<number> {
  const row = await onDocs(
    db,
    where,
    (docs) =>
      sql<{
        n: number | string;
      }>`select count(*) as n from ${docs} where ${where}`,
  );
  return Number(row.rows[0]?.n ?? 0);
}

/** PIDs of the matching documents in `order` (order-by.ts), `rows` from `start`. */
export async function pageOfPids(
  db: SearchDb,
  where: Condition,
  order: Condition,
  rows: number,
  start: number,
): Promise<string[]> {
  const page = await onDocs(
    db,
    where,
    (docs) =>
      sql<{ pid: string }>`select d.pid from ${docs} where ${where}
    order by ${order} limit ${rows} offset ${start}`,
  );
  return page.rows.map((r) => r.pid);
}

/** Every matching document in `order`, with its least value of `field` (its group). */
export async function groupsOf(
  db: SearchDb,
  where: Condition,
  field: string,
  order: Condition,
): Promise<{ pid: string; g: string | null }[]> {
  const matched = await onDocs(
    db,
    where,
    (docs) =>
      sql<{ pid: string; g: string | null }>`select d.pid as pid,
      (select min(v.value) from search_values v where v.pid = d.pid and v.field = ${field}) as g
    from ${docs} where ${where} order by ${order}`,
  );
  return matched.rows;
}

/** Whether the index holds at least `minimum` documents, reading no further (a count is a full scan). */
export async function holdsAtLeast(db: SearchDb, minimum: number): Promise<boolean> {
  const row = await sql`select 1 from search_docs limit 1 offset ${minimum - 1}`.execute(db.kysely);
  return row.rows.length > 0;
}

/** How many documents the index holds. */
export async function documentCount(db: SearchDb): Promise<number> {
  const row = await sql<{ n: number | string }>`select count(*) as n from search_docs`.execute(db.kysely);
  return Number(row.rows[0]?.n ?? 0);
}
