/**
 * `search_docs d` as the SQL answer of a query reads it. SQLite's planner judges rows by their declared columns
 * and scans the table itself for a condition on the filter columns, walking every document's stored JSON (the
 * columns after it sit past its overflow pages). It is therefore told to read the covering index
 * `search_docs_filter` unless the condition needs the terms' row (`term_id`, not in that index). PostgreSQL
 * picks the index by itself.
 */
import { type QueryResult, type RawBuilder, sql } from "kysely";
import type { Condition } from "./conditions.ts";
import { unlessIndexDropped } from "./dropped-index.ts";
import type { SearchDb } from "./index-store.ts";

const PLAIN = sql`search_docs d`;
const HINTED = sql`search_docs d indexed by search_docs_filter`;

/** Runs `query` over `search_docs d` as read for `where` (unlessIndexDropped: during a rebuild, without the hint). */
export async function onDocs<T>(
  db: SearchDb,
  where: Condition,
  query: (docs: RawBuilder<unknown>) => RawBuilder<T>,
): Promise<QueryResult<T>> {
  if (db.dialect === "postgres" || where.compile(db.kysely).sql.includes("term_id"))
    return query(PLAIN).execute(db.kysely);
  return unlessIndexDropped(
    () => query(HINTED).execute(db.kysely),
    () => query(PLAIN).execute(db.kysely),
  );
}
