/**
 * The search index's tables, as migrations of the node's one list (`d1node_migrations`): the composition root
 * merges these with src/db/migrations' by number, so each keeps the number and the name databases recorded.
 * A new one: a file NNNN-name.ts here (importing only Kysely, this folder and src/db/migrations/migration.ts)
 * with a number no folder has used, and one line at the end of SEARCH_MIGRATIONS.
 */
import type { Migration } from "../../../db/migrations/migration.ts";
import { searchIndexMigration } from "./0004-search-index.ts";
import { searchSpeedMigration } from "./0009-search-speed.ts";
import { searchRebuildMigration } from "./0014-search-rebuild.ts";
import { searchChangesMigration } from "./0016-search-changes.ts";
import { searchValuesByPidMigration } from "./0018-search-values-by-pid.ts";
import { searchDocsWriteCostMigration } from "./0019-search-docs-write-cost.ts";

export const SEARCH_MIGRATIONS: readonly Migration[] = [
  searchIndexMigration,
  searchSpeedMigration,
  searchRebuildMigration,
  searchChangesMigration,
  searchValuesByPidMigration,
  searchDocsWriteCostMigration,
];
