/**
 * 0015-row-counts: the number of rows of `events` and `objects`, kept by triggers in the transactions that insert
 * or delete them, so that an unfiltered getLogRecords or listObjects knows its `total` without counting the
 * table (a count of 20 million log entries took 8 s). Every writer is covered, bulk ones included.
 * PostgreSQL: each statement adds one delta row (insert-only, so concurrent writers never wait for each other
 * on a counter row); the sum is the count, and readers fold the deltas into one row now and then. SQLite (one
 * writer at a time): one row per table, updated by a row trigger.
 * Creating the triggers first locks out writers (SHARE ROW EXCLUSIVE), so the initial count is exact. That count
 * reads the table once, when the migration runs (PostgreSQL, 50 million entries: 9.5 s on a busy machine).
 */
import { sql } from "kysely";
import type { Migration, MigrationDb } from "../migration.ts";

const COUNTED = ["events", "objects"] as const;

export const rowCountsMigration: Migration = {
  name: "0015-row-counts",
  async up(db, dialect) {
    if (dialect === "postgres") await postgres(db);
    else await sqlite(db);
    for (const table of COUNTED) {
      await sql`insert into row_counts (name, n) select ${table}, count(*) from ${sql.table(table)}`.execute(
        db,
      );
    }
  },
};

async function postgres(db: MigrationDb): Promise<void> {
  await sql`create table row_counts (name text not null, n bigint not null)`.execute(db);
  await sql`create index row_counts_name on row_counts (name)`.execute(db);
  for (const [fn, rows, sign] of [
    ["row_counts_inserted", "new_rows", ""],
    ["row_counts_deleted", "old_rows", "-"],
  ] as const) {
    await sql
      .raw(
        `create function ${fn}() returns trigger language plpgsql as $$
         declare k bigint;
         begin
           select count(*) into k from ${rows};
           if k > 0 then insert into row_counts (name, n) values (TG_TABLE_NAME, ${sign}k); end if;
           return null;
         end $$`,
      )
      .execute(db);
  }
  for (const table of COUNTED) {
    await sql
      .raw(
        `create trigger ${table}_counted_insert after insert on ${table} referencing new table as new_rows
           for each statement execute function row_counts_inserted()`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger ${table}_counted_delete after delete on ${table} referencing old table as old_rows
           for each statement execute function row_counts_deleted()`,
      )
      .execute(db);
  }
}

async function sqlite(db: MigrationDb): Promise<void> {
  await sql`create table row_counts (name text primary key, n integer not null)`.execute(db);
  for (const table of COUNTED) {
    await sql
      .raw(
        `create trigger ${table}_counted_insert after insert on ${table} begin
           update row_counts set n = n + 1 where name = '${table}'; end`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger ${table}_counted_delete after delete on ${table} begin
           update row_counts set n = n - 1 where name = '${table}'; end`,
      )
      .execute(db);
  }
}
