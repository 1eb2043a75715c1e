/**
 * Schema migrations, in code, applied in order at open. Each runs once; the applied ones are recorded by name in
 * d1node_migrations. On PostgreSQL an advisory lock keeps two processes from migrating at once.
 * A new migration: a file NNNN-name.ts in this folder (importing only Kysely and ./migration.ts), and one line at
 * the end of MIGRATIONS.
 */
import { sql } from "kysely";
import { objectsEventsMigration } from "./0001-objects-events.ts";
import { accessRowsMigration } from "./0002-access-rows.ts";
import { cnMigration } from "./0003-cn.ts";
import { searchIndexMigration } from "./0004-search-index.ts";
import { tasksMigration } from "./0005-tasks.ts";
import { harvestMigration } from "./0006-harvest.ts";
import { replicationMigration } from "./0007-replication.ts";
import { propagationLogsMigration } from "./0008-propagation-logs.ts";
import { searchSpeedMigration } from "./0009-search-speed.ts";
import { identifiersMigration } from "./0010-identifiers.ts";
import { importMigration } from "./0011-import.ts";
import { auditMigration } from "./0012-audit.ts";
import { eventsByTypeMigration } from "./0013-events-by-type.ts";
import { searchRebuildMigration } from "./0014-search-rebuild.ts";
import { rowCountsMigration } from "./0015-row-counts.ts";
import { searchChangesMigration } from "./0016-search-changes.ts";
import { eventsCountedByWritersMigration } from "./0017-events-counted-by-writers.ts";
import { searchValuesByPidMigration } from "./0018-search-values-by-pid.ts";
import { searchDocsWriteCostMigration } from "./0019-search-docs-write-cost.ts";
import { nodePendingSubjectsMigration } from "./0020-node-pending-subjects.ts";
import { importCopiesMigration } from "./0021-import-copies.ts";
import { dateMicrosecondsMigration } from "./0022-date-microseconds.ts";
import { browserSessionsMigration } from "./0023-browser-sessions.ts";
import { uploadsMigration } from "./0024-uploads.ts";
import { oaiTombstonesMigration } from "./0025-oai-tombstones.ts";
import { usageCountsMigration } from "./0026-usage-counts.ts";
import { reviewLinksMigration } from "./0027-review-links.ts";
import { digestLookupMigration } from "./0028-digest-lookup.ts";
import { listedObjectsMigration } from "./0029-listed-objects.ts";
import type { Dialect, Migration, MigrationDb } from "./migration.ts";

export type { Dialect } from "./migration.ts";

export const MIGRATIONS: readonly Migration[] = [
  objectsEventsMigration,
  accessRowsMigration,
  cnMigration,
  searchIndexMigration,
  tasksMigration,
  harvestMigration,
  replicationMigration,
  propagationLogsMigration,
  searchSpeedMigration,
  identifiersMigration,
  importMigration,
  auditMigration,
  eventsByTypeMigration,
  searchRebuildMigration,
  rowCountsMigration,
  searchChangesMigration,
  eventsCountedByWritersMigration,
  searchValuesByPidMigration,
  searchDocsWriteCostMigration,
  nodePendingSubjectsMigration,
  importCopiesMigration,
  dateMicrosecondsMigration,
  browserSessionsMigration,
  uploadsMigration,
  oaiTombstonesMigration,
  usageCountsMigration,
  reviewLinksMigration,
  digestLookupMigration,
  listedObjectsMigration,
];

export async function migrate(db: MigrationDb, dialect: Dialect): Promise<void> {
  await db.connection().execute(async (conn) => {
    if (dialect === "postgres") await sql`select pg_advisory_lock(727001)`.execute(conn);
    try {
      await sql`create table if not exists d1node_migrations (name text primary key, applied_at bigint not null)`.execute(
        conn,
      );
      const done = await sql<{ name: string }>`select name from d1node_migrations`.execute(conn);
      const applied = new Set(done.rows.map((r) => r.name));
      for (const migration of MIGRATIONS) {
        if (applied.has(migration.name)) continue;
        await conn.transaction().execute(async (tx) => {
          await migration.up(tx, dialect);
          await sql`insert into d1node_migrations (name, applied_at) values (${migration.name}, ${Date.now()})`.execute(
            tx,
          );
        });
      }
    } finally {
      if (dialect === "postgres") await sql`select pg_advisory_unlock(727001)`.execute(conn);
    }
  });
}
