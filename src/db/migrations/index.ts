/**
 * Schema migrations, in code, applied in order at open. Each runs once; the applied ones are recorded by name in
 * d1node_migrations. On PostgreSQL an advisory lock keeps two processes from migrating at once.
 * MIGRATIONS lists the node's own; the search index's are its module's (src/search/store/migrations/). The
 * composition root merges the lists by number (`inNumberOrder`) and hands the whole to `migrate`, which refuses
 * a list out of that order: a number is taken once across the folders, and every database applies by number.
 * The files sit in subfolders by role (objects/, cn/, work/, website/, discovery/); a migration's recorded name
 * is its `name`, never its folder. A new migration: a file NNNN-name.ts in the subfolder of its role (importing
 * only Kysely and ../migration.ts), and one line at the end of MIGRATIONS.
 */
import { sql } from "kysely";
import { cnMigration } from "./cn/0003-cn.ts";
import { harvestMigration } from "./cn/0006-harvest.ts";
import { replicationMigration } from "./cn/0007-replication.ts";
import { propagationLogsMigration } from "./cn/0008-propagation-logs.ts";
import { nodePendingSubjectsMigration } from "./cn/0020-node-pending-subjects.ts";
import { reservationsBySubjectMigration } from "./cn/0030-reservations-by-subject.ts";
import { oaiTombstonesMigration } from "./discovery/0025-oai-tombstones.ts";
import { usageCountsMigration } from "./discovery/0026-usage-counts.ts";
import type { Dialect, Migration, MigrationDb } from "./migration.ts";
import { objectsEventsMigration } from "./objects/0001-objects-events.ts";
import { accessRowsMigration } from "./objects/0002-access-rows.ts";
import { identifiersMigration } from "./objects/0010-identifiers.ts";
import { eventsByTypeMigration } from "./objects/0013-events-by-type.ts";
import { rowCountsMigration } from "./objects/0015-row-counts.ts";
import { eventsCountedByWritersMigration } from "./objects/0017-events-counted-by-writers.ts";
import { dateMicrosecondsMigration } from "./objects/0022-date-microseconds.ts";
import { digestLookupMigration } from "./objects/0028-digest-lookup.ts";
import { listedObjectsMigration } from "./objects/0029-listed-objects.ts";
import { browserSessionsMigration } from "./website/0023-browser-sessions.ts";
import { uploadsMigration } from "./website/0024-uploads.ts";
import { reviewLinksMigration } from "./website/0027-review-links.ts";
import { tasksMigration } from "./work/0005-tasks.ts";
import { importMigration } from "./work/0011-import.ts";
import { auditMigration } from "./work/0012-audit.ts";
import { importCopiesMigration } from "./work/0021-import-copies.ts";

export type { Dialect } from "./migration.ts";

export const MIGRATIONS: readonly Migration[] = [
  objectsEventsMigration,
  accessRowsMigration,
  cnMigration,
  tasksMigration,
  harvestMigration,
  replicationMigration,
  propagationLogsMigration,
  identifiersMigration,
  importMigration,
  auditMigration,
  eventsByTypeMigration,
  rowCountsMigration,
  eventsCountedByWritersMigration,
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
  reservationsBySubjectMigration,
];

/** Applies, in their order, the given migrations a database has not recorded (the whole list, `inNumberOrder`). */
export async function migrate(
  db: MigrationDb,
  dialect: Dialect,
  migrations: readonly Migration[],
): Promise<void> {
  assertNumberOrder(migrations);
  await db.connection().execute(async (conn) => {
    if (dialect === "postgres") await sql`select pg_advisory_lock(727001)`.execute(conn);
    try {
      await sql`create table if not exists d1node_migrations (name text primary key, applied_at bigint not null)`.execute(
        conn,
      );
      const done = await sql<{ name: string }>`select name from d1node_migrations`.execute(conn);
      const applied = new Set(done.rows.map((r) => r.name));
      for (const migration of migrations) {
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

/** The migrations of several folders as one list, by their number (the name's NNNN); a number taken twice throws. */
export function inNumberOrder(...lists: readonly (readonly Migration[])[]): readonly Migration[] {
  const all = lists.flat();
  const ordered = [...all].sort((a, b) => numberOf(a) - numberOf(b));
  assertNumberOrder(ordered);
  return ordered;
}

/** Throws unless every name starts with a number (NNNN-) and the numbers strictly increase. */
function assertNumberOrder(migrations: readonly Migration[]): void {
  let previous: Migration | undefined;
  for (const migration of migrations) {
    const number = numberOf(migration);
    if (previous && number <= numberOf(previous))
      throw new Error(
        `migration ${migration.name} is listed after ${previous.name}: one number each, in order`,
      );
    previous = migration;
  }
}

function numberOf(migration: Migration): number {
  const found = /^(\d{4})-/.exec(migration.name);
  if (!found) throw new Error(`migration ${migration.name}: the name starts with its number (NNNN-)`);
  return Number(found[1]);
}
