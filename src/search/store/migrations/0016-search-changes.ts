/**
 * 0016-search-changes: a change position for the search index that survives a restart and is shared by every
 * process, so the engine's memory can be saved to a file and brought up to date at start by reading only the
 * documents changed since (src/search/memory-snapshot.ts). One row per document ever written or removed, kept by
 * triggers on search_docs (every writer is covered, bulk and thread writers included; a removal too):
 * - SQLite (one writer at a time): `seq`, one more than the highest, so commit order is number order.
 * - PostgreSQL: the writing transaction's id (`xid8`); a position is a transaction snapshot
 *   (`pg_current_snapshot()`), and "changed since" is "written by a transaction that snapshot does not see",
 *   exact whatever order concurrent writers commit in.
 * `search_change_origin` names this database, so a snapshot made against another one is never trusted.
 */
import { sql } from "kysely";
import type { Migration, MigrationDb } from "../../../db/migrations/migration.ts";

const EVENTS = [
  ["insert", "new"],
  ["update", "new"],
  ["delete", "old"],
] as const;

export const searchChangesMigration: Migration = {
  name: "0016-search-changes",
  async up(db, dialect) {
    await sql`create table search_change_origin (id text primary key)`.execute(db);
    if (dialect === "postgres") await postgres(db);
    else await sqlite(db);
  },
};

async function postgres(db: MigrationDb): Promise<void> {
  await sql`insert into search_change_origin (id) values (md5(random()::text || clock_timestamp()::text))`.execute(
    db,
  );
  await sql`create table search_changes (pid text collate "C" primary key, xid xid8 not null)`.execute(db);
  await sql`create index search_changes_xid on search_changes (xid)`.execute(db);
  await sql
    .raw(
      `create function search_changes_noted() returns trigger language plpgsql as $$
       begin
         insert into search_changes (pid, xid) select distinct pid, pg_current_xact_id() from changed
           on conflict (pid) do update set xid = excluded.xid;
         return null;
       end $$`,
    )
    .execute(db);
  for (const [event, rows] of EVENTS) {
    await sql
      .raw(
        `create trigger search_docs_${event}_noted after ${event} on search_docs
         referencing ${rows} table as changed for each statement execute function search_changes_noted()`,
      )
      .execute(db);
  }
}

async function sqlite(db: MigrationDb): Promise<void> {
  await sql`insert into search_change_origin (id) values (lower(hex(randomblob(16))))`.execute(db);
  await sql`create table search_changes (pid text primary key, seq integer not null)`.execute(db);
  await sql`create index search_changes_seq on search_changes (seq)`.execute(db);
  for (const [event, rows] of EVENTS) {
    await sql
      .raw(
        `create trigger search_docs_${event}_noted after ${event} on search_docs begin
           insert into search_changes (pid, seq)
             values (${rows}.pid, (select coalesce(max(seq), 0) + 1 from search_changes))
             on conflict (pid) do update set seq = excluded.seq;
         end`,
      )
      .execute(db);
  }
}
