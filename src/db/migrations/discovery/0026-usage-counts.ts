/**
 * 0026-usage-counts: usage metrics (COUNTER R5.1) pre-aggregated from the event log. `usage_counts` holds, per
 * object and month (yyyymm, UTC), the four counts; `usage_dataset_counts` the same per dataset (its metadata
 * object's PID) and month, a dataset's unique counts being once per user-session whichever of its objects were
 * read (so not a sum of its objects'); `usage_cursor` how far the log was counted (the last event id)
 * and, on PostgreSQL, the highest id seen at the previous pass and when (`seen_at`, microseconds, the server's
 * clock): counting reaches that id once every transaction of the database begun by then has ended, so a
 * transaction still committing a lower id is never passed over. The log's index by PID becomes (pid, date_logged): the counter looks up an object's
 * reads within an hour, and lookups by PID alone use it as before.
 */
import { sql } from "kysely";
import { idType, type Migration } from "../migration.ts";

export const usageCountsMigration: Migration = {
  name: "0026-usage-counts",
  async up(db, dialect) {
    const id = idType(dialect);
    await sql`create table usage_counts (
      pid ${id} not null,
      month integer not null,
      total_investigations bigint not null default 0,
      unique_investigations bigint not null default 0,
      total_requests bigint not null default 0,
      unique_requests bigint not null default 0,
      primary key (pid, month)
    )`.execute(db);
    await sql`create table usage_dataset_counts (
      dataset ${id} not null,
      month integer not null,
      total_investigations bigint not null default 0,
      unique_investigations bigint not null default 0,
      total_requests bigint not null default 0,
      unique_requests bigint not null default 0,
      primary key (dataset, month)
    )`.execute(db);
    await sql`create table usage_cursor (
      name text primary key,
      last_id bigint not null,
      seen_id bigint not null,
      seen_at bigint not null
    )`.execute(db);
    await sql`insert into usage_cursor (name, last_id, seen_id, seen_at) values ('events', 0, 0, 0)`.execute(
      db,
    );
    await sql`create index events_pid_logged on events (pid, date_logged)`.execute(db);
    await sql`drop index events_pid`.execute(db);
  },
};
