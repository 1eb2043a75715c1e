/**
 * Where the search index stands, as a position every process shares and a restart keeps (migration
 * 0016-search-changes): the engine's memory saved to a file records the position it reflects, and at start reads
 * only the documents changed (written or removed) since. SQLite: the highest change number; PostgreSQL: a
 * transaction snapshot, "since" meaning by a transaction it did not see.
 */
import { sql } from "kysely";
import type { SearchDb } from "./index-store.ts";

export interface ChangePosition {
  /** Names the database (a position means nothing in another). */
  origin: string;
  position: string;
}

/** Where the index stands now: every change committed before this call is at or before it. */
export async function changePosition(db: SearchDb): Promise<ChangePosition> {
  const query =
    db.dialect === "postgres"
      ? sql<{ origin: string; position: string }>`select (select id from search_change_origin) as origin,
          pg_current_snapshot()::text as position`
      : sql<{ origin: string; position: number }>`select (select id from search_change_origin) as origin,
          (select coalesce(max(seq), 0) from search_changes) as position`;
  const row = (await query.execute(db.kysely)).rows[0];
  return { origin: String(row?.origin), position: String(row?.position) };
}

/**
 * The documents written or removed after `position` (each once); refused when more than `limit` were, or when
 * the position is ahead of the database (a snapshot newer than a database restored from a backup). One indexed
 * query: SQLite by change number, PostgreSQL by transaction id from the snapshot's oldest on.
 */
export async function changedSince(
  db: SearchDb,
  position: string,
  limit: number,
): Promise<{ pids: string[] } | { refused: string }> {
  const postgres = db.dialect === "postgres";
  const ahead = postgres
    ? sql<{ ahead: boolean }>`select pg_snapshot_xmax(${position}::pg_snapshot)
        > pg_snapshot_xmax(pg_current_snapshot()) as ahead`
    : sql<{
        ahead: number;
      }>`select ${Number(position)} > (select coalesce(max(seq), 0) from search_changes) as ahead`;
  if ((await ahead.execute(db.kysely)).rows[0]?.ahead) return { refused: "ahead of the database" };
  const query = postgres
    ? sql<{ pid: string }>`select pid from search_changes
        where xid >= pg_snapshot_xmin(${position}::pg_snapshot)
          and not pg_visible_in_snapshot(xid, ${position}::pg_snapshot)
        limit ${limit + 1}`
    : sql<{ pid: string }>`select pid from search_changes where seq > ${Number(position)} limit ${limit + 1}`;
  const { rows } = await query.execute(db.kysely);
  if (rows.length > limit) return { refused: `more than ${limit} documents changed since` };
  return { pids: rows.map((row) => row.pid) };
}
