/**
 * Loading many objects at once (`d1node load`, benchmarks). The whole load is one transaction: it lands
 * completely or not at all. Into empty tables the secondary indexes are dropped first and built again at the
 * end, inside the same transaction (faster than inserting with the indexes in place: docs/decisions.md, "Hot
 * paths"). SQLite inserts through prepared statements on the better-sqlite3 handle; PostgreSQL through one
 * INSERT ... SELECT FROM unnest(arrays) per batch. Meant for a node that is not running: another process
 * would not see the rows until the end. The load bypasses the write core (src/objects/) for speed; its
 * `followUp` writes the core's outbox rows in the same transaction.
 */
import type BetterSqlite3 from "better-sqlite3";
import { type Kysely, sql } from "kysely";
import { DuplicateKeyError, isUniqueViolation } from "../errors.ts";
import type { Tables } from "../schema.ts";
import { transactionTasks } from "../tasks.ts";
import type { Database, StoredObject, TaskQueue } from "../types.ts";
import { accessRows, toRow } from "./rows.ts";
import { REGISTER_LOADED_SERIES } from "./series.ts";

export interface BulkLoadOptions {
  /** Objects between progress reports (and per INSERT on PostgreSQL); default 10,000. */
  batchSize?: number;
  /**
   * Runs inside the load's transaction after each batch, with the transaction's task queue: the outbox rows the
   * write core's subscribers would write for these objects commit with them or not at all.
   */
  followUp?: BatchFollowUp;
}

export type BatchFollowUp = (tasks: TaskQueue, batch: readonly StoredObject[]) => Promise<void>;

/** Loads `objects`, reporting the running count after each batch; resolves to the total. */
export type BulkLoad = (
  objects: Iterable<StoredObject>,
  batchSize: number,
  onProgress?: (loaded: number) => void,
  followUp?: BatchFollowUp,
) => Promise<number>;

const loaders = new WeakMap<Database, BulkLoad>();

/** openDatabase registers how each database it opens loads in bulk. */
export function registerBulkLoad(db: Database, load: BulkLoad): void {
  loaders.set(db, load);
}

/** Insert every object (new PIDs only: a PID already stored fails the whole load with DuplicateKeyError). */
export async function bulkLoadObjects(
  db: Database,
  objects: Iterable<StoredObject>,
  onProgress?: (loaded: number) => void,
  options: BulkLoadOptions = {},
): Promise<number> {
  const load = loaders.get(db);
  if (!load) throw new Error("bulkLoadObjects needs a database opened by openDatabase");
  try {
    return await load(objects, options.batchSize ?? 10_000, onProgress, options.followUp);
  } catch (error) {
    throw isUniqueViolation(error)
      ? new DuplicateKeyError("an identifier in the load is already stored")
      : error;
  }
}

const TABLES = ["objects", "access_rules"];

/** SQLite: prepared statements, run while holding Kysely's only connection so that no other query interleaves. */
export function sqliteBulkLoad(db: Kysely<Tables>, handle: BetterSqlite3.Database): BulkLoad {
  return (objects, batchSize, onProgress, followUp) =>
    db.connection().execute(async (connection) => {
      handle.exec("begin");
      try {
        const indexes = handle
          .prepare(
            `select name, sql from sqlite_master where type = 'index' and sql is not null and tbl_name in (${TABLES.map(() => "?").join(", ")})`,
          )
          .all(...TABLES) as { name: string; sql: string }[];
        const rebuild = isEmpty(handle) ? indexes : [];
        for (const index of rebuild) handle.exec(`drop index "${index.name}"`);
        // The row-count trigger (migration 0015) updates its row once per object; the load adds its count
        // once instead, in the same transaction.
        const counted = handle
          .prepare("select sql from sqlite_master where type = 'trigger' and name = 'objects_counted_insert'")
          .get() as { sql: string } | undefined;
        if (counted) handle.exec("drop trigger objects_counted_insert");
        let insertObject: ((object: StoredObject) => void) | undefined;
        const rule = handle.prepare("insert into access_rules (pid, subject, permission) values (?, ?, ?)");
        const identifier = handle.prepare("insert into identifiers (id, kind) values (?, 'pid')");
        const tasks = transactionTasks(connection, "sqlite");
        let batch: StoredObject[] = [];
        let loaded = 0;
        for (const object of objects) {
          insertObject ??= objectInserter(handle, object);
          insertObject(object);
          identifier.run(object.sysmeta.identifier);
          for (const r of accessRows(object)) rule.run(r.pid, r.subject, r.permission);
          if (followUp) batch.push(object);
          if (++loaded % batchSize === 0) {
            await followUp?.(tasks, batch);
            batch = [];
            onProgress?.(loaded);
            await new Promise(setImmediate);
          }
        }
        if (batch.length > 0) await followUp?.(tasks, batch);
        for (const index of rebuild) handle.exec(index.sql);
        if (counted) {
          handle.prepare("update row_counts set n = n + ? where name = 'objects'").run(loaded);
          handle.exec(counted.sql);
        }
        handle.exec(REGISTER_LOADED_SERIES);
        handle.exec("commit");
        if (loaded % batchSize !== 0) onProgress?.(loaded);
        return loaded;
      } catch (error) {
        if (handle.inTransaction) handle.exec("rollback");
        throw error;
      }
    });
}

function isEmpty(handle: BetterSqlite3.Database): boolean {
  return handle.prepare("select 1 from objects limit 1").get() === undefined;
}

/** One prepared INSERT, its columns taken from the first row (every row has the same shape). */
function objectInserter(handle: BetterSqlite3.Database, first: StoredObject): (object: StoredObject) => void {
  const columns = Object.keys(toRow(first)) as (keyof ReturnType<typeof toRow>)[];
  const statement = handle.prepare(
    `insert into objects (${columns.join(", ")}) values (${columns.map(() => "?").join(", ")})`,
  );
  return (object) => {
    const row = toRow(object);
    statement.run(columns.map((column) => row[column]));
  };
}

/**
 * PostgreSQL: a batch per statement, each column sent as one array parameter and expanded by unnest().
 * `announce` runs last in the transaction: other processes hear of the load on commit.
 */
export function postgresBulkLoad(
  db: Kysely<Tables>,
  announce: (tx: Kysely<Tables>) => Promise<void>,
): BulkLoad {
  return async (objects, batchSize, onProgress, followUp) => {
    const loaded = await db.transaction().execute(async (tx) => {
      const tasks = transactionTasks(tx, "postgres");
      const empty = (await tx.selectFrom("objects").select("pid").limit(1).executeTakeFirst()) === undefined;
      const indexes = empty ? await secondaryIndexes(tx) : [];
      for (const index of indexes) await sql`drop index ${sql.ref(index.indexname)}`.execute(tx);
      let loaded = 0;
      let batch: StoredObject[] = [];
      const write = async () => {
        await insertUnnest(tx, "objects", batch.map(toRow));
        await insertUnnest(tx, "access_rules", batch.flatMap(accessRows));
        await insertUnnest(
          tx,
          "identifiers",
          batch.map((object) => ({ id: object.sysmeta.identifier, kind: "pid" })),
        );
        await followUp?.(tasks, batch);
        loaded += batch.length;
        batch = [];
        onProgress?.(loaded);
      };
      for (const object of objects) {
        batch.push(object);
        if (batch.length >= batchSize) await write();
      }
      if (batch.length > 0) await write();
      for (const index of indexes) await sql.raw(index.indexdef).execute(tx);
      await sql.raw(REGISTER_LOADED_SERIES).execute(tx);
      await announce(tx);
      return loaded;
    });
    // Fresh statistics and visibility: without them the planner may choose whole-table joins for the reader
    // filters until autovacuum comes by.
    await sql`vacuum (analyze) objects, access_rules`.execute(db);
    return loaded;
  };
}

/** Indexes on the loaded tables other than those of their key constraints. */
async function secondaryIndexes(tx: Kysely<Tables>) {
  const result = await sql<{ indexname: string; indexdef: string }>`
    select indexname, indexdef from pg_indexes
    where schemaname = current_schema() and tablename in (${sql.join(TABLES)})
      and indexname not in (select conname from pg_constraint)`.execute(tx);
  return result.rows;
}

async function insertUnnest(tx: Kysely<Tables>, table: string, rows: object[]): Promise<void> {
  const first = rows[0];
  if (first === undefined) return;
  const columns = Object.keys(first);
  const values = rows.map((row) => Object.values(row) as unknown[]);
  const arrays = columns.map((_, i) => {
    const column = values.map((row) => row[i]);
    const type = column.some((v) => typeof v === "number") ? "int8[]" : "text[]";
    return sql`${column}::${sql.raw(type)}`;
  });
  await sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))})
    select * from unnest(${sql.join(arrays)})`.execute(tx);
}
