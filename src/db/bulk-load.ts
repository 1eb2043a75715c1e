/**
 * Loading many objects at once (`d1node load`): rows go in batches of one transaction each; on SQLite through
 * prepared statements on the better-sqlite3 handle, on PostgreSQL as multi-row INSERTs. Meant for an offline
 * node: a running node on the same database would keep serving list positions it remembered before the load.
 */
import type BetterSqlite3 from "better-sqlite3";
import type { Kysely } from "kysely";
import { DuplicateKeyError, isUniqueViolation } from "./errors.ts";
import { accessRows, toRow } from "./rows.ts";
import type { AccessRulesTable, ObjectsTable, Tables } from "./schema.ts";
import type { StoredObject } from "./types.ts";

/** What openDatabase offers for bulk loads: insert objects and their access rules in one transaction. */
export interface BulkInsert {
  bulkInsert(objects: readonly StoredObject[]): Promise<void>;
}

export interface BulkLoadOptions {
  /** Objects per transaction (default 20,000). */
  batchSize?: number;
}

/** Insert every object; `onProgress` hears the running total after each committed batch. Returns the total. */
export async function bulkLoadObjects(
  db: BulkInsert,
  objects: Iterable<StoredObject>,
  onProgress?: (loaded: number) => void,
  options: BulkLoadOptions = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 20_000;
  let batch: StoredObject[] = [];
  let loaded = 0;
  const flush = async () => {
    await db.bulkInsert(batch);
    loaded += batch.length;
    batch = [];
    onProgress?.(loaded);
  };
  for (const object of objects) {
    batch.push(object);
    if (batch.length >= batchSize) await flush();
  }
  if (batch.length > 0) await flush();
  return loaded;
}

/**
 * SQLite: prepared statements on the better-sqlite3 handle behind `db`, one synchronous transaction per batch,
 * run while holding Kysely's connection so that no other query interleaves.
 */
export function sqliteBulkInsert(
  db: Kysely<Tables>,
  handle: BetterSqlite3.Database,
): BulkInsert["bulkInsert"] {
  let insertAll: ((objects: readonly StoredObject[]) => void) | undefined;
  return async (objects) => {
    if (objects.length === 0) return;
    if (!insertAll) {
      // Prepared once, from the column names of the first row.
      const columns = Object.keys(toRow(objects[0] as StoredObject));
      const object = handle.prepare(
        `insert into objects (${columns.join(", ")}) values (${columns.map((c) => `@${c}`).join(", ")})`,
      );
      const rule = handle.prepare("insert into access_rules (pid, subject, permission) values (?, ?, ?)");
      insertAll = handle.transaction((batch: readonly StoredObject[]) => {
        for (const item of batch) {
          object.run(toRow(item));
          for (const r of accessRows(item)) rule.run(r.pid, r.subject, r.permission);
        }
      });
    }
    const run = insertAll;
    try {
      await db.connection().execute(async () => run(objects));
    } catch (error) {
      throw duplicate(error);
    }
  };
}

/** PostgreSQL (or any Kysely dialect): multi-row INSERTs inside one transaction per batch. */
export function kyselyBulkInsert(db: Kysely<Tables>): BulkInsert["bulkInsert"] {
  // PostgreSQL allows 65,535 parameters per statement: objects have 29 columns, access rules 3.
  const OBJECT_ROWS = 1000;
  const RULE_ROWS = 5000;
  return async (objects) => {
    if (objects.length === 0) return;
    const rows: ObjectsTable[] = objects.map(toRow);
    const rules: AccessRulesTable[] = objects.flatMap(accessRows);
    try {
      await db.transaction().execute(async (tx) => {
        for (let i = 0; i < rows.length; i += OBJECT_ROWS) {
          await tx
            .insertInto("objects")
            .values(rows.slice(i, i + OBJECT_ROWS))
            .execute();
        }
        for (let i = 0; i < rules.length; i += RULE_ROWS) {
          await tx
            .insertInto("access_rules")
            .values(rules.slice(i, i + RULE_ROWS))
            .execute();
        }
      });
    } catch (error) {
      throw duplicate(error);
    }
  };
}

function duplicate(error: unknown): unknown {
  return isUniqueViolation(error)
    ? new DuplicateKeyError("an identifier in the batch is already stored")
    : error;
}
