/**
 * 0018-search-values-by-pid: on SQLite, search_values is keyed by (pid, field, value), the order a rebuild writes
 * in, and (field, value, pid, num) becomes a secondary index (it covers the filters and a field's read as the
 * key did). A rebuild's pages then go at the end of the table, and its end builds the secondary indexes only;
 * before, it moved every value into the old key, then built the pid index (docs/decisions.md, "Full rebuild:
 * the values in write order until the end"). PostgreSQL is unchanged (a heap: its key is an index like the
 * others).
 *
 * A rebuild under way keeps going: its staged values (the staging table of the old shape) move into the new
 * table here, and the new table's indexes join its deferred statements instead of being built now.
 */
import { sql } from "kysely";
import type { Migration, MigrationDb } from "../../../db/migrations/migration.ts";

const NEW = "search_values_by_pid";
const STAGED = "search_values_rebuild";
const SEARCH_VALUES_INDEXES = [
  "create index search_values_by_value on search_values (field, value, pid, num)",
  "create index search_values_num on search_values (field, num, pid) where num is not null",
];

export const searchValuesByPidMigration: Migration = {
  name: "0018-search-values-by-pid",
  async up(db, dialect) {
    if (dialect !== "sqlite") return;
    await sql
      .raw(`create table ${NEW} (pid text not null, field text not null, value text not null,
        num double precision, primary key (pid, field, value)) without rowid`)
      .execute(db);
    await sql
      .raw(`insert into ${NEW} (pid, field, value, num)
        select pid, field, value, num from search_values order by pid, field, value`)
      .execute(db);
    if (await tableExists(db, STAGED)) {
      await sql
        .raw(`insert into ${NEW} (pid, field, value, num)
          select pid, field, value, num from ${STAGED} order by pid, field, value`)
        .execute(db);
      await sql.raw(`drop table ${STAGED}`).execute(db);
    }
    await sql`drop table search_values`.execute(db);
    await sql.raw(`alter table ${NEW} rename to search_values`).execute(db);
    if (!(await deferToRebuild(db)))
      for (const index of SEARCH_VALUES_INDEXES) await sql.raw(index).execute(db);
  },
};

async function tableExists(db: MigrationDb, name: string): Promise<boolean> {
  const rows = await sql`select 1 from sqlite_master where type = 'table' and name = ${name}`.execute(db);
  return rows.rows.length > 0;
}

/**
 * An unfinished rebuild that deferred search_values' indexes: its list gets the new ones in place of every
 * statement of the old shape (the staged values' move, the old indexes). False when there is none.
 */
async function deferToRebuild(db: MigrationDb): Promise<boolean> {
  const row = (
    await sql<{
      deferred_indexes: string;
    }>`select deferred_indexes from search_rebuild where name = 'full'`.execute(db)
  ).rows[0];
  if (!row) return false;
  const deferred = JSON.parse(row.deferred_indexes) as string[];
  if (!deferred.some((statement) => statement.includes("search_values"))) return false;
  const others = deferred.filter((statement) => !statement.includes("search_values"));
  await sql`update search_rebuild set deferred_indexes = ${JSON.stringify([...others, ...SEARCH_VALUES_INDEXES])}
    where name = 'full'`.execute(db);
  return true;
}
