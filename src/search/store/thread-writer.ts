/**
 * A worker thread's own connection to the node's SQLite file (shared for the while: src/db/engine/sqlite-sharing.ts),
 * writing index rows as the node's connection would (index-store.ts `writeSqlite`), each batch in a transaction
 * that takes the write lock at once. The node's connection keeps reading meanwhile (WAL); its own writes wait for
 * the batch being written (busy_timeout), then go before the thread's next one. The caller notes the PIDs in the
 * node's index change log once the batch has committed.
 */
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { waitForTurn } from "../../db/engine/sqlite-sharing.ts";
import type { Tables } from "../../db/schema.ts";
import { preparedOnce } from "../../db/sqlite-handle.ts";
import type { IndexRows } from "../schema/index-rows.ts";
import { writeSqlite } from "./index-store.ts";
import { finishRebuild, type RebuildEnd, rebuildProgressed } from "./rebuild-state.ts";

/** A thread's connection writing index rows (SQLite's writing thread, or a PostgreSQL extraction thread). */
export interface RowWriter {
  /** Write the rows in one transaction; resolves once it has committed. */
  write(rows: IndexRows[]): Promise<void>;
  close(): Promise<void>;
}

/** SQLite's one writing thread: also the rebuild's progress and its dropped indexes, on the same connection. */
export interface ThreadWriter extends RowWriter {
  /** Note the rebuild's progress (rebuild-state.ts), on this connection. */
  progressed(after: string): Promise<void>;
  /** Build the indexes the rebuild dropped and forget it (rebuild-state.ts), on this connection. */
  finishRebuild(onEnd?: (end: RebuildEnd) => void): Promise<void>;
}

/** How long a batch waits for the write lock (the node's own transactions are short). */
const BUSY_MS = 60_000;
/**
 * The one writing connection's page cache: a transaction of WRITE_CHUNK documents into an index with its
 * secondary indexes up (a rebuild that did not start empty) dirties thousands of pages all over them, which a
 * smaller cache writes to the log before the commit (and again at it). Held for the rebuild only.
 */
const CACHE_KIB = 65_536;
/**
 * Pages of log after which a commit copies the log into the file (SQLite's default: 1,000; ~200 MiB here). A
 * rebuild's transactions rewrite mostly the same pages, so a rarer copy writes each of them once, not each commit.
 */
const CHECKPOINT_PAGES = 50_000;

export function openThreadWriter(file: string, nodeWaiting?: Int32Array): ThreadWriter {
  const handle = new SQLite(file, { fileMustExist: true });
  handle.pragma(`busy_timeout = ${BUSY_MS}`);
  handle.pragma("synchronous = NORMAL");
  handle.pragma(`cache_size = -${CACHE_KIB}`);
  handle.pragma(`wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
  handle.pragma("temp_store = MEMORY");
  // Transactions take the write lock at once (the next free term id is read before writing), after the node's
  // connection when it is waiting for it; each statement's text is prepared once (a page's inserts repeat).
  const turn = {
    beginning<T>(begin: () => T): T {
      if (nodeWaiting) waitForTurn(nodeWaiting);
      return begin();
    },
  };
  const database = preparedOnce(handle, turn);
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database }) });
  const state = { kysely: db, dialect: "sqlite" as const };
  return {
    write: async (rows) => {
      await db.transaction().execute((tx) => writeSqlite(tx, rows));
    },
    progressed: (after) => rebuildProgressed(state, after),
    // The end's sorts in temporary files with more cache (rebuild-state.ts, sortInFiles).
    finishRebuild: (onEnd) => finishRebuild(state, onEnd),
    close: () => db.destroy(),
  };
}
