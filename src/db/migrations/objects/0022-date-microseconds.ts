/**
 * 0022-date-microseconds: the microseconds after the millisecond of an object's dateUploaded and
 * dateSysMetadataModified, as the node that wrote the record gave them (GMN writes microseconds; a copy states
 * the same dates). The dates stay in milliseconds in date_uploaded and date_modified, the list order's key.
 */
import type { Migration } from "../migration.ts";

export const dateMicrosecondsMigration: Migration = {
  name: "0022-date-microseconds",
  async up(db) {
    for (const column of ["date_uploaded_us", "date_modified_us"]) {
      await db.schema
        .alterTable("objects")
        .addColumn(column, "integer", (c) => c.notNull().defaultTo(0))
        .execute();
    }
  },
};
