/**
 * Opening the database: a postgres:// URL selects PostgreSQL (a pg pool), anything else SQLite in a file
 * (better-sqlite3). One code path (Kysely) serves both; migrations run on open.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, type SqliteDatabase, SqliteDialect, type SqliteStatement } from "kysely";
import pg from "pg";
import { type BulkInsert, kyselyBulkInsert, sqliteBulkInsert } from "./bulk-load.ts";
import { eventLog } from "./events.ts";
import { type Dialect, migrate } from "./migrations.ts";
import { type DirectReads, objectRepository, RowCache } from "./objects.ts";
import { KeysetPager } from "./pager.ts";
import type { ObjectsTable, Tables } from "./schema.ts";
import { blobIntents, sysmetaRefreshQueue } from "./small-tables.ts";
import type { Database } from "./types.ts";

export interface OpenOptions {
  /** postgres://user@host:port/db */
  url?: string;
  /** SQLite file, used when no URL is given. */
  sqlitePath?: string;
}

/** PostgreSQL BIGINT (oid 20) as JS numbers: sizes and millisecond dates stay below 2^53. */
const pgTypes = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === 20
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** A database as the node uses it, plus bulk loading (`d1node load`). */
export interface OpenedDatabase extends Database, BulkInsert {}

export async function openDatabase(options: OpenOptions): Promise<OpenedDatabase> {
  const dialect: Dialect = options.url?.startsWith("postgres") ? "postgres" : "sqlite";
  const handle = dialect === "sqlite" ? sqliteHandle(options) : undefined;
  const db = new Kysely<Tables>({
    dialect: handle ? new SqliteDialect({ database: preparedOnce(handle) }) : postgres(options.url as string),
  });
  await migrate(db, dialect);
  const pager = new KeysetPager();
  const events = eventLog(db);
  const bulkInsert = handle ? sqliteBulkInsert(db, handle) : kyselyBulkInsert(db);
  // SQLite: this process is the database's only user (exclusive lock), so recent rows can be kept in memory.
  const cache = handle ? new RowCache(10_000) : undefined;
  const direct = handle ? directReads(handle) : undefined;
  return {
    dialect,
    objects: objectRepository(db, pager, {
      ...(direct ? { direct } : {}),
      ...(cache ? { cache } : {}),
      fill: true,
    }),
    blobIntents: blobIntents(db),
    sysmetaRefresh: sysmetaRefreshQueue(db),
    events,
    async transaction(work) {
      try {
        return await db.transaction().execute((tx) =>
          work({
            objects: objectRepository(tx, pager, cache ? { cache } : {}),
            blobIntents: blobIntents(tx),
          }),
        );
      } finally {
        // Positions may have shifted under a list that ran while the transaction was open.
        pager.invalidate();
      }
    },
    async bulkInsert(objects) {
      try {
        await bulkInsert(objects);
      } finally {
        pager.invalidate();
      }
    },
    async close() {
      await events.close();
      await db.destroy();
    },
  };
}

function postgres(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: 10, types: pgTypes });
  // An idle pooled connection that the server ends (restart, administrator command) is dropped from the pool;
  // without a listener its error would end the process. Queries in flight still fail and report their error.
  pool.on("error", () => undefined);
  return new PostgresDialect({ pool });
}

/**
 * WAL with synchronous=NORMAL: a commit survives a crash of the process (what the crash tests check); an OS
 * crash or power loss can lose the last commits but never corrupts the database. synchronous=FULL would cost
 * an fsync per commit (measured: ~600 vs ~830 small creates/s).
 */
function sqliteHandle(options: OpenOptions): SQLite.Database {
  const file = options.sqlitePath ?? "d1node.sqlite";
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const database = new SQLite(file);
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = NORMAL");
  database.pragma("busy_timeout = 5000");
  database.pragma("locking_mode = EXCLUSIVE");
  return database;
}

/** Reads on the handle itself; not while a transaction (begun through Kysely) is open on it. */
function directReads(handle: SQLite.Database): DirectReads {
  const byPid = handle.prepare("select * from objects where pid = ?");
  return {
    get available() {
      return !handle.inTransaction;
    },
    objectRow: (pid) => byPid.get(pid) as ObjectsTable | undefined,
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
