/**
 * 0017-events-counted-by-writers: on SQLite, the writers of `events` add the rows they insert to `row_counts`
 * themselves, one update per batch, instead of migration 0015's row trigger, whose update per row weighed on
 * every logged read (docs/decisions.md, "Hot paths"). Every insert into `events` goes through
 * `src/db/events/event-log.ts` or `src/db/events/direct-event-inserts.ts`, which count. The delete trigger stays; PostgreSQL
 * keeps its statement triggers (one delta row per statement already).
 */
import { sql } from "kysely";
import type { Migration } from "../migration.ts";

export const eventsCountedByWritersMigration: Migration = {
  name: "0017-events-counted-by-writers",
  async up(db, dialect) {
    if (dialect === "sqlite") await sql`drop trigger if exists events_counted_insert`.execute(db);
  },
};
