/**
 * 0013-events-by-type: getLogRecords filtered by event type ("event=create") pages in (date_logged, id) order
 * within that type. Without this index each page read the whole log's order and dropped the other types (a
 * page of a 1 % type scanned a hundred times its rows); with it, the pages and the pager's hops over them are
 * ranges of one index. Building it reads the log once.
 */
import type { Migration } from "../migration.ts";

export const eventsByTypeMigration: Migration = {
  name: "0013-events-by-type",
  async up(db) {
    await db.schema
      .createIndex("events_event_logged")
      .on("events")
      .columns(["event", "date_logged", "id"])
      .execute();
  },
};
