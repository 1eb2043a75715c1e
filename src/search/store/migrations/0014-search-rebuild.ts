/**
 * 0014-search-rebuild: where a full rebuild of the search index stands (`d1node index`, src/search/indexing/reindex.ts),
 * so that an interrupted one resumes after the last page it wrote: one row while a rebuild is unfinished, with
 * the definitions of the secondary indexes it dropped (a rebuild of an empty index builds them once, at the end).
 */
import type { Migration } from "../../../db/migrations/migration.ts";

export const searchRebuildMigration: Migration = {
  name: "0014-search-rebuild",
  async up(db) {
    await db.schema
      .createTable("search_rebuild")
      .addColumn("name", "text", (c) => c.primaryKey())
      .addColumn("after_pid", "text")
      .addColumn("started_at", "bigint", (c) => c.notNull())
      .addColumn("deferred_indexes", "text", (c) => c.notNull())
      .execute();
  },
};
