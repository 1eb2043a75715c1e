/**
 * The node's SQLite connection (better-sqlite3): its pragmas, the handle Kysely runs on (statements prepared
 * once, transactions that take the write lock at once) and the reads made on the handle directly.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";
import type { SqliteSharing } from "./engine/sqlite-sharing.ts";
import type { DirectReads } from "./objects/repository.ts";
import type { ObjectsTable } from "./schema.ts";
import { compiledRegexp } from "./sqlite-regexp.ts";

/**
 * WAL with synchronous=NORMAL: a commit survives a crash of the process; an OS crash or power loss could lose
 * the last commits (never corrupting the database), so by default each write then waits for a flush of the
 * WAL that commits made meanwhile share (durable-commits.ts): synchronous=FULL would fsync inside every
 * commit, on the event loop's thread. locking_mode=EXCLUSIVE: the node is the only process on its file (no
 * shared-memory WAL index to maintain); a second process waits busy_timeout and then fails rather than
 * reading behind the node's back. foreign_keys=ON: access rows go with their object. A 64 MiB page cache and
 * a checkpoint every 10,000 WAL pages instead of 1,000: the event log's inserts touch pages all over its
 * indexes, and with the defaults checkpoints slow small gets under load (docs/decisions.md, "Hot paths").
 * temp_store=MEMORY: statement journals in memory, not in temp files; temporary tables and sorts are small
 * here.
 */
export function sqliteHandle(file: string): SQLite.Database {
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
  // Regular expression queries (`field:/re/`): SQLite has no REGEXP of its own (sqlite-regexp.ts).
  database.function("d1_regexp", { deterministic: true }, (value: unknown, source: unknown) =>
    typeof value === "string" && typeof source === "string" && compiledRegexp(source).test(value) ? 1 : 0,
  );
  return database;
}

/** Reads on the handle itself; not while a transaction (begun through Kysely) is open on it. */
export function directReads(handle: SQLite.Database): DirectReads {
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

/**
 * The handle as Kysely sees it, with each distinct SQL text prepared once (docs/decisions.md, "Hot paths").
 * Kysely runs one query at a time per connection, so reusing a statement is safe; the cache stops growing at
 * 1000 texts (queries with variable IN lists or row counts make new texts).
 */
export function preparedOnce(
  handle: SQLite.Database,
  sharing: Pick<SqliteSharing, "beginning"> | undefined,
): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  const begin = handle.prepare("begin immediate");
  // While the file is shared, the threads let the node's connection take the lock first (sqlite-sharing.ts).
  const beginStatement = {
    reader: false,
    all: () => [],
    iterate: () => [][Symbol.iterator](),
    run: () => (sharing ? sharing.beginning(() => begin.run()) : begin.run()),
  } as unknown as SqliteStatement;
  // SQLite rolls a transaction back itself on some errors (a full disk: SQLITE_FULL, I/O errors; "Response To
  // Errors Within A Transaction"); the rollback that follows would then fail, "cannot rollback - no transaction
  // is active", and that error would replace the one that says what happened.
  const rollback = handle.prepare("rollback");
  const rollbackStatement = {
    reader: false,
    all: () => [],
    iterate: () => [][Symbol.iterator](),
    run: () => (handle.inTransaction ? rollback.run() : { changes: 0, lastInsertRowid: 0 }),
  } as unknown as SqliteStatement;
  return {
    close: () => handle.close(),
    prepare(text) {
      // Every transaction takes the write lock at once: while another connection shares the file (a rebuild's
      // writer thread, sqlite-sharing.ts), a deferred one that read first could not write after its commit.
      if (text === "begin") return beginStatement;
      if (text === "rollback") return rollbackStatement;
      let statement = statements.get(text);
      if (!statement) {
        statement = handle.prepare(text);
        if (statements.size < 1000) statements.set(text, statement);
      }
      return statement;
    },
  };
}
