/**
 * 0029-listed-objects: the walks over a node's own objects read an index of just them, not the table.
 * OAI-PMH's lists (src/db/oai-records.ts) are in (datestamp, pid) order over objects that are not replicas; their
 * first request counts them (completeListSize), which on objects_modified read every row for `is_replica`. The
 * sitemap (src/db/sitemap-rows.ts) walks current, not archived own objects in pid order, its index counting each
 * file's run: with the format and the datestamp in the index, neither reads a row. Both still ask access_rules
 * whether public may read each one.
 */
import { sql } from "kysely";
import type { Migration } from "../migration.ts";

export const listedObjectsMigration: Migration = {
  name: "0029-listed-objects",
  async up(db) {
    await sql`create index objects_own_by_modified on objects (date_modified, pid) where is_replica = 0`.execute(
      db,
    );
    await sql`create index objects_sitemap on objects (pid, format_id, date_modified)
      where obsoleted_by is null and archived = 0 and is_replica = 0`.execute(db);
  },
};
