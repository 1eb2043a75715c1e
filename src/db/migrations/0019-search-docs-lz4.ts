/**
 * 0019-search-docs-lz4: on PostgreSQL, search_docs' large columns (the stored fields, the science fields, the
 * terms: several KB a document, over the size PostgreSQL compresses at) are compressed with lz4 instead of the
 * default pglz, where the server is built with it. Measured on the EML corpus: COPY of those columns 0.125 -> 0.06
 * ms of the backend's CPU a document, 6 % more bytes (docs/decisions.md, "Full rebuild: lz4 for search_docs").
 * Values already stored keep their compression (both are read alike); new and rewritten ones use lz4.
 */
import { sql } from "kysely";
import type { Migration, MigrationDb } from "./migration.ts";

const COLUMNS = ["doc", "science", "terms"];

export const searchDocsLz4Migration: Migration = {
  name: "0019-search-docs-lz4",
  async up(db, dialect) {
    if (dialect !== "postgres" || !(await lz4Built(db))) return;
    for (const column of COLUMNS)
      await sql`alter table search_docs alter column ${sql.ref(column)} set compression lz4`.execute(db);
  },
};

/** Whether this server can compress with lz4 (built --with-lz4: lz4 is then a value of the setting). */
async function lz4Built(db: MigrationDb): Promise<boolean> {
  const rows = await sql<{ values: string[] }>`select enumvals as values from pg_settings
    where name = 'default_toast_compression'`.execute(db);
  return rows.rows[0]?.values.includes("lz4") ?? false;
}
