/**
 * 0019-search-docs-write-cost: on PostgreSQL, two costs of writing a search_docs row, the largest of the
 * backend's in a rebuild after the JSON parse (`perf` at 100,000 EML documents; docs/decisions.md, "Full
 * rebuild: the backend's CPU a document"):
 * - The terms compare byte-wise (`collate "C"`, as every identifier and search_values already do): their GIN
 *   index sorted and compared each document's ~180 terms with strcoll under the database's collation. Terms
 *   are only ever matched for equality or compared under "C" (term-conditions.ts), so no answer changes. The
 *   GIN index is built again here (one core: minutes at millions of documents).
 * - The large columns (the stored fields, the science fields, the terms) are compressed with lz4 instead of
 *   pglz where the server is built with it: pglz was a fifth of the backend's CPU. Values already stored keep
 *   their compression (both are read alike); new and rewritten ones use lz4.
 */
import { sql } from "kysely";
import type { Migration, MigrationDb } from "../../../db/migrations/migration.ts";

const LARGE_COLUMNS = ["doc", "science", "terms"];

export const searchDocsWriteCostMigration: Migration = {
  name: "0019-search-docs-write-cost",
  async up(db, dialect) {
    if (dialect !== "postgres") return;
    await sql`alter table search_docs alter column terms type text[] collate "C"`.execute(db);
    if (!(await lz4Built(db))) return;
    for (const column of LARGE_COLUMNS)
      await sql`alter table search_docs alter column ${sql.ref(column)} set compression lz4`.execute(db);
  },
};

/** Whether this server can compress with lz4 (built --with-lz4: lz4 is then a value of the setting). */
async function lz4Built(db: MigrationDb): Promise<boolean> {
  const rows = await sql<{ values: string[] }>`select enumvals as values from pg_settings
    where name = 'default_toast_compression'`.execute(db);
  return rows.rows[0]?.values.includes("lz4") ?? false;
}
