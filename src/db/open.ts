/**
 * Opening the database: a postgres:// URL selects PostgreSQL (a pg pool), anything else SQLite in a file
 * (better-sqlite3, set up in sqlite-handle.ts). One code path (Kysely) serves both; migrations run on open.
 */
import path from "node:path";
import type SQLite from "better-sqlite3";
import {
  Kysely,
  type Dialect as KyselyDialect,
  PostgresDialect,
  type SqliteDatabase,
  SqliteDialect,
} from "kysely";
import { browserSessionRepository } from "./browser-sessions.ts";
import { harvestProgressRepository } from "./cn/harvest-progress.ts";
import { logProgressRepository } from "./cn/log-progress.ts";
import { replicaNodeRepository } from "./cn/replica-nodes.ts";
import { cnRepository } from "./cn/repository.ts";
import { type ChangeFeed, startChangeFeed } from "./engine/change-feed.ts";
import { DurableSqliteDialect, walFlush } from "./engine/durable-commits.ts";
import { type PostgresLimits, postgresPool } from "./engine/postgres-pool.ts";
import { addToCount } from "./engine/row-counts.ts";
import { sqliteSnapshot } from "./engine/snapshot.ts";
import { sqliteSharing } from "./engine/sqlite-sharing.ts";
import { DuplicateKeyError, isUniqueViolation } from "./errors.ts";
import { directEventInserts } from "./events/direct-event-inserts.ts";
import { type EventLogOptions, eventLog, type TransactionEvents } from "./events/event-log.ts";
import { IndexChangeLog } from "./index-changes.ts";
import { nodeCountsRepository } from "./lists/node-counts.ts";
import { compareKeys } from "./lists/order.ts";
import { KeysetPager } from "./lists/pager.ts";
import { WALK_FROM, warmLists } from "./lists/warm-lists.ts";
import { type Dialect, migrate } from "./migrations/index.ts";
import type { Migration } from "./migrations/migration.ts";
import { oaiRecords } from "./oai-records.ts";
import { auditStore } from "./objects/audit-runs.ts";
import { type BulkLoad, postgresBulkLoad, registerBulkLoad, sqliteBulkLoad } from "./objects/bulk-load.ts";
import { contentKeyLocks } from "./objects/content-key-locks.ts";
import { importProgressRepository } from "./objects/import-progress.ts";
import { blobIntents, sysmetaRefreshQueue } from "./objects/pending-work.ts";
import { type ObjectKey, type ObjectWrite, objectRepository, RowCache } from "./objects/repository.ts";
import { reviewLinkRepository } from "./review-links.ts";
import type { Tables } from "./schema.ts";
import { directReads, preparedOnce, sqliteHandle } from "./sqlite-handle.ts";
import { taskRepository, transactionTasks } from "./tasks.ts";
import type { Database, StoredObject } from "./types.ts";
import { uploadRecords } from "./upload-records.ts";
import { usageStore } from "./usage/usage-store.ts";

export interface OpenOptions {
  /**
   * Every migration of the node's schema, in number order (the composition root's list: src/db's own and the
   * modules' that keep tables, such as search's); those a database has not recorded run on open.
   */
  migrations: readonly Migration[];
  /** postgres://user@host:port/db */
  url?: string;
  /** SQLite file, used when no URL is given. */
  sqlitePath?: string;
  /** PostgreSQL: seconds to wait for a connection (default 10 when either limit is set; none when neither is). */
  connectTimeoutSeconds?: number;
  /** PostgreSQL: seconds one statement may run (default 30 when either limit is set; none when neither is). */
  statementTimeoutSeconds?: number;
  /** PostgreSQL: connections kept open at most (default 10). */
  poolSize?: number;
  /** Hears failed background writes of the event log. */
  onEventLogError?: EventLogOptions["onError"];
  /**
   * SQLite: a write returns once its commit is on disk (default true; durable-commits.ts). false: once committed
   * in the process, as the WAL with synchronous=NORMAL promises (an OS crash or power cut may lose the last ones).
   */
  durableCommits?: boolean;
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  const dialect: Dialect = options.url === undefined ? "sqlite" : "postgres";
  const handle = dialect === "sqlite" ? sqliteHandle(options.sqlitePath ?? "d1node.sqlite") : undefined;
  const sharing = handle && !handle.memory ? sqliteSharing(handle, path.resolve(handle.name)) : undefined;
  const db = new Kysely<Tables>({
    dialect: handle
      ? sqliteDialect(handle, preparedOnce(handle, sharing), options.durableCommits ?? true)
      : new PostgresDialect({
          pool: await postgresPool(options.url as string, postgresLimits(options), options.poolSize),
        }),
  });
  try {
    await migrateWithoutLimits(db, dialect, options);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const pager = new KeysetPager<ObjectKey, StoredObject>(compareKeys, WALK_FROM);
  const cache = new RowCache(10_000);
  let feed: ChangeFeed | undefined;
  const indexChanges = new IndexChangeLog();
  if (!handle) {
    indexChanges.trusted = false;
    indexChanges.announce = async (tx, pids) => feed?.announceIndex(tx, pids);
  }
  const events = eventLog(db, {
    ...(options.onEventLogError ? { onError: options.onEventLogError } : {}),
    ...(handle
      ? { insertNow: directEventInserts(handle), countAdded: (tx, added) => addToCount(tx, "events", added) }
      : { announce: async (tx, from) => feed?.announceEvents(tx, from) }),
  });
  // SQLite: this process is the database's only user (exclusive lock). PostgreSQL: other processes may write;
  // their writes are heard through the change feed, and nothing is trusted while it cannot hear.
  feed = handle
    ? undefined
    : await startChangeFeed(options.url as string, {
        changed(pids, from) {
          if (pids) for (const pid of pids) cache.forget(pid);
          else cache.forget();
          if (from) pager.writtenElsewhere(from);
          else pager.forget(() => true);
          events.objectsChanged();
        },
        eventsAdded: (from) => events.addedElsewhere(from),
        indexChanged: (pids) => indexChanges.note(pids),
        trusted(heard) {
          indexChanges.trust(heard);
          cache.trust(heard);
          pager.trust(heard);
          events.trust(heard);
        },
      });

  /** A transaction writing objects: the pager, the row cache and the event lists hear of it once it is over. */
  const tracked = async <T>(run: (writes: ObjectWrite[]) => Promise<T>): Promise<T> => {
    pager.begin();
    const writes: ObjectWrite[] = [];
    let outcome: ObjectWrite[] | "unknown" = "unknown";
    try {
      const result = await run(writes);
      outcome = writes;
      return result;
    } catch (error) {
      // A refused duplicate is certainly rolled back; other failures may leave anything behind.
      if (error instanceof DuplicateKeyError || isUniqueViolation(error)) outcome = [];
      throw error;
    } finally {
      pager.end(outcome);
      if (outcome === "unknown") cache.forget();
      else for (const write of outcome) cache.forget(write.key[1]);
      events.objectsChanged();
    }
  };

  /** `work` in a transaction of its own, ending (PostgreSQL) with the announcement of what it wrote. */
  const writeTransaction = <T>(work: (tx: Kysely<Tables>, writes: ObjectWrite[]) => Promise<T>) =>
    tracked((writes) =>
      db.transaction().execute(async (tx) => {
        const result = await work(tx, writes);
        const pids = writes.map((write) => write.key[1]);
        if (feed && pids.length > 0) await feed.announce(tx, pids, lowestKey(writes));
        return result;
      }),
    );

  const objects = objectRepository({
    db,
    pager,
    write: writeTransaction,
    ...(handle ? { direct: directReads(handle) } : {}),
    cache,
  });
  const load: BulkLoad = handle
    ? sqliteBulkLoad(db, handle)
    : postgresBulkLoad(db, (tx) => feed?.announce(tx, "*") ?? Promise.resolve());

  let closing: Promise<void> | undefined;
  const tasks = taskRepository(db, dialect);
  const database: Database = {
    dialect,
    kysely: db,
    indexChanges,
    objects,
    blobIntents: blobIntents(db),
    sysmetaRefresh: sysmetaRefreshQueue(db),
    cn: cnRepository(db),
    tasks,
    harvestProgress: harvestProgressRepository(db),
    logProgress: logProgressRepository(db),
    replicaNodes: replicaNodeRepository(db),
    counts: nodeCountsRepository(db, dialect),
    importProgress: importProgressRepository(db),
    audit: auditStore(db),
    uploads: uploadRecords(db),
    oai: oaiRecords(db),
    contentKeys: contentKeyLocks(db, dialect),
    browserSessions: browserSessionRepository(db),
    reviewLinks: reviewLinkRepository(db),
    usage: usageStore(db, dialect),
    events,
    async snapshotTo(file) {
      if (!handle) throw new Error("a PostgreSQL database is copied with pg_dump, not by the node");
      await events.flush();
      await sqliteSnapshot(handle, file);
    },
    ...(sharing ? { sqliteSharing: sharing } : {}),
    ...(handle ? {} : { postgresUrl: options.url as string }),
    warmLists: (signal, minimumRows) => warmLists(db, pager, events, signal, minimumRows),
    async transaction(work) {
      let logged: TransactionEvents | undefined;
      let queued: ReturnType<typeof transactionTasks> | undefined;
      let committed = false;
      try {
        const result = await writeTransaction((tx, writes) => {
          logged = events.inTransaction(tx);
          queued = transactionTasks(tx, dialect);
          return work({
            objects: objectRepository({ db: tx, pager, write: (step) => step(tx, writes) }),
            blobIntents: blobIntents(tx),
            events: logged,
            tasks: queued,
            replicaNodes: replicaNodeRepository(tx),
            importProgress: importProgressRepository(tx),
          });
        });
        committed = true;
        return result;
      } finally {
        logged?.end(committed);
        // Announced on the event loop's next turn: the writer's own steps after the commit (and the crash tests'
        // crash point) run before a worker of this process wakes to lease the new tasks.
        const announced = committed ? queued : undefined;
        if (announced) setImmediate(() => announced.committed(tasks.signals));
      }
    },
    close() {
      closing ??= pager
        .stopWalks()
        .then(() => events.close())
        .finally(() => feed?.close())
        .finally(() => db.destroy());
      return closing;
    },
  };
  registerBulkLoad(database, async (...args) => {
    pager.begin();
    try {
      return await load(...args);
    } finally {
      pager.end("unknown");
      cache.forget();
      events.objectsChanged();
    }
  });
  return database;
}

/** Kysely on the handle; with durable commits, each write waits for its commit's flush to disk. */
function sqliteDialect(handle: SQLite.Database, database: SqliteDatabase, durable: boolean): KyselyDialect {
  if (!durable || handle.memory) return new SqliteDialect({ database });
  return new DurableSqliteDialect({ database }, handle, walFlush(path.resolve(handle.name)));
}

/** The lowest list key among the writes (each write's key is the smaller of its old and new ones). */
function lowestKey(writes: readonly ObjectWrite[]): ObjectKey | undefined {
  return writes.reduce<ObjectKey | undefined>(
    (low, { key }) => (low === undefined || compareKeys(key, low) < 0 ? key : low),
    undefined,
  );
}

/** The serving limits, when given (a command such as a bulk load runs long statements and sets none). */
function postgresLimits(options: OpenOptions): PostgresLimits | undefined {
  if (options.connectTimeoutSeconds === undefined && options.statementTimeoutSeconds === undefined) {
    return undefined;
  }
  return {
    connectTimeoutMs: (options.connectTimeoutSeconds ?? 10) * 1000,
    statementTimeoutMs: (options.statementTimeoutSeconds ?? 30) * 1000,
  };
}

/** Migrations may build indexes over large tables: on PostgreSQL they run on a connection without the limits. */
async function migrateWithoutLimits(
  db: Kysely<Tables>,
  dialect: Dialect,
  options: OpenOptions,
): Promise<void> {
  if (dialect === "sqlite" || !postgresLimits(options)) return migrate(db, dialect, options.migrations);
  const unlimited = new Kysely<Tables>({
    dialect: new PostgresDialect({ pool: await postgresPool(options.url as string, undefined) }),
  });
  try {
    await migrate(unlimited, dialect, options.migrations);
  } finally {
    await unlimited.destroy();
  }
}
