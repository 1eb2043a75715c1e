/**
 * Schema migrations, in code, applied in order at open. Each runs once; the applied ones are recorded by name in
 * d1node_migrations. On PostgreSQL an advisory lock keeps two processes from migrating at once.
 * MIGRATIONS lists the node's own; the search index's are its module's (src/search/store/migrations/). The
 * composition root merges the lists by number (`inNumberOrder`) and hands the whole to `migrate`, which refuses
 * a list out of that order: a number is taken once across the folders, and every database applies by number.
 * A new migration: a file NNNN-name.ts in this folder (importing only Kysely and ./migration.ts), and one line at
 * the end of MIGRATIONS.
 */
import { sql } from "kysely";
import { objectsEventsMigration } from "./0001-objects-events.ts";
import { accessRowsMigration } from "./0002-access-rows.ts";
import { cnMigration } from "./0003-cn.ts";
import { tasksMigration } from "./0005-tasks.ts";
import { harvestMigration } from "./0006-harvest.ts";
import { replicationMigration } from "./0007-replication.ts";
import { propagationLogsMigration } from "./0008-propagation-logs.ts";
import { identifiersMigration } from "./0010-identifiers.ts";
import { importMigration } from "./0011-import.ts";
import { auditMigration } from "./0012-audit.ts";
import { eventsByTypeMigration } from "./0013-events-by-type.ts";
import { rowCountsMigration } from "./0015-row-counts.ts";
import { eventsCountedByWritersMigration } from "./0017-events-counted-by-writers.ts";
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
import { reservationsBySubjectMigration } from "./0030-reservations-by-subject.ts";
import type { Dialect, Migration, MigrationDb } from "./migration.ts";

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
