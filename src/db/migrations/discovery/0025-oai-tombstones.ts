/**
 * 0025-oai-tombstones: what stays of a removed public object for OAI-PMH, whose deleted records are
 * `persistent` ("the repository maintains information about deletions with no time limit"): its PID, its
 * formatId (for the format-type sets) and when it was removed (the deleted record's datestamp).
 * Removal frees the PID (migration 0010), so the object row cannot carry this.
 */
import { sql } from "kysely";
import { idType, type Migration } from "../migration.ts";

export const oaiTombstonesMigration: Migration = {
  name: "0025-oai-tombstones",
  async up(db, dialect) {
    const id = idType(dialect);
    await sql`create table oai_tombstones (
      pid ${id} primary key,
      format_id text not null,
      date_deleted bigint not null
    )`.execute(db);
    await sql`create index oai_tombstones_by_date on oai_tombstones (date_deleted, pid)`.execute(db);
  },
};
