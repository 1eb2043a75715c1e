/**
 * Opening the database: a postgres:// URL selects PostgreSQL (a pg pool), anything else SQLite in a file
 * (better-sqlite3). One code path (Kysely) serves both; migrations run on open.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, type SqliteDatabase, SqliteDialect, type SqliteStatement } from "kysely";
import { compiledRegexp } from "../search/lucene-regexp.ts";
import { auditStore } from "./audit-runs.ts";
import { type BulkLoad, postgresBulkLoad, registerBulkLoad, sqliteBulkLoad } from "./bulk-load.ts";
import { type ChangeFeed, startChangeFeed } from "./change-feed.ts";
import { cnRepository } from "./cn-repository.ts";
import { contentKeyLocks } from "./content-key-locks.ts";
import { DuplicateKeyError, isUniqueViolation } from "./errors.ts";
import { type EventLogOptions, eventLog, type NewRow, type TransactionEvents } from "./events.ts";
import { harvestProgressRepository } from "./harvest-progress.ts";
import { importProgressRepository } from "./import-progress.ts";
import { IndexChangeLog } from "./index-changes.ts";
import { logProgressRepository } from "./log-progress.ts";
import { type Dialect, migrate } from "./migrations/index.ts";
import { nodeCountsRepository } from "./node-counts.ts";
import { type DirectReads, type ObjectKey, type ObjectWrite, objectRepository, RowCache } from "./objects.ts";
import { compareKeys } from "./order.ts";
import { KeysetPager } from "./pager.ts";
import { type PostgresLimits, postgresPool } from "./postgres-pool.ts";
import { replicaNodeRepository } from "./replica-nodes.ts";
import type { ObjectsTable, Tables } from "./schema.ts";
import { searchRepository } from "./search/index.ts";
import { blobIntents, sysmetaRefreshQueue } from "./small-tables.ts";
import { sqliteSnapshot } from "./snapshot.ts";
import { taskRepository, transactionTasks } from "./tasks.ts";
import type { Database, StoredObject } from "./types.ts";
import { WALK_FROM, warmLists } from "./warm-lists.ts";

export interface OpenOptions {
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
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  const dialect: Dialect = options.url?.startsWith("postgres") ? "postgres" : "sqlite";
  const handle = dialect === "sqlite" ? sqliteHandle(options) : undefined;
  const db = new Kysely<Tables>({
    dialect: handle
      ? new SqliteDialect({ database: preparedOnce(handle) })
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
      ? { insertNow: directEventInserts(handle) }
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
    search: searchRepository({ kysely: db, dialect, indexChanges }),
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
    contentKeys: contentKeyLocks(db, dialect),
    events,
    async snapshotTo(file) {
      if (!handle) throw new Error("a PostgreSQL database is copied with pg_dump, not by the node");
      await events.flush();
      await sqliteSnapshot(handle, file);
    },
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
          });
        });
        committed = true;
        return result;
      } finally {
        logged?.end(committed);
        if (committed) queued?.committed(tasks.signals);
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
  if (dialect === "sqlite" || !postgresLimits(options)) return migrate(db, dialect);
  const unlimited = new Kysely<Tables>({
    dialect: new PostgresDialect({ pool: await postgresPool(options.url as string, undefined) }),
  });
  try {
    await migrate(unlimited, dialect);
  } finally {
    await unlimited.destroy();
  }
}

/**
 * WAL with synchronous=NORMAL: a commit survives a crash of the process (what the crash tests check); an OS
 * crash or power loss can lose the last commits but never corrupts the database. synchronous=FULL would cost
 * an fsync per commit (measured: ~600 vs ~830 small creates/s).
 * locking_mode=EXCLUSIVE: the node is the only process on its file (no shared-memory WAL index to maintain);
 * a second process waits busy_timeout and then fails rather than reading behind the node's back.
 * foreign_keys=ON: access rows go with their object.
 * A 64 MiB page cache and a checkpoint every 10,000 WAL pages instead of 1,000: the event log's inserts touch
 * pages all over its indexes, and with the defaults small-get throughput fell by a third within 20 s of load.
 * temp_store=MEMORY: statement journals in memory (measured: each 1 KiB create wrote ~30 pages of them to a
 * temp file); temporary tables and sorts are small here.
 */
function sqliteHandle(options: OpenOptions): SQLite.Database {
  const file = options.sqlitePath ?? "d1node.sqlite";
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const database = new SQLite(file);
  database.pragma("busy_timeout = 5000");
  database.pragma("locking_mode = EXCLUSIVE");
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = NORMAL");
  database.pragma("foreign_keys = ON");
  database.pragma("cache_size = -65536");
  database.pragma("wal_autocheckpoint = 10000");
  database.pragma("temp_store = MEMORY");
  // Regular expression queries (`field:/re/`, src/search/lucene-regexp.ts): SQLite has no REGEXP of its own.
  database.function("d1_regexp", { deterministic: true }, (value: unknown, source: unknown) =>
    typeof value === "string" && typeof source === "string" && compiledRegexp(source).test(value) ? 1 : 0,
  );
  return database;
}

/** Reads on the handle itself; not while a transaction (begun through Kysely) is open on it. */
function directReads(handle: SQLite.Database): DirectReads {
  const byPid = handle.prepare("select * from objects where pid = ?");
  const identifier = handle.prepare("select 1 from identifiers where id = ?").pluck();
  return {
    get available() {
      return !handle.inTransaction;
    },
    objectRow: (pid) => byPid.get(pid) as ObjectsTable | undefined,
    identifierInUse: (id) => identifier.get(id) !== undefined,
  };
}

/** Event batches written on the handle itself, in a transaction of their own; not while Kysely has one open. */
function directEventInserts(handle: SQLite.Database): (rows: readonly NewRow[]) => boolean {
  const insert = handle.prepare(
    "insert into events (pid, ip, user_agent, subject, event, date_logged, node_id) values (?, ?, ?, ?, ?, ?, ?)",
  );
  const insertAll = handle.transaction((rows: readonly NewRow[]) => {
    for (const r of rows) insert.run(r.pid, r.ip, r.user_agent, r.subject, r.event, r.date_logged, r.node_id);
  });
  return (rows) => {
    if (handle.inTransaction) return false;
    insertAll(rows);
    return true;
  };
}

/**
 * The handle as Kysely sees it, with each distinct SQL text prepared once (measured: preparing on every query
 * cost ~4 % of small-get throughput). Kysely runs one query at a time per connection, so reusing a statement is
 * safe; the cache stops growing at 1000 texts (queries with variable IN lists or row counts make new texts).
 */
function preparedOnce(handle: SQLite.Database): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => handle.close(),
    prepare(text) {
      let statement = statements.get(text);
      if (!statement) {
        statement = handle.prepare(text);
        if (statements.size < 1000) statements.set(text, statement);
      }
      return statement;
    },
  };
}
