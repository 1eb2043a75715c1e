/**
 * A worker thread's own connection to the node's SQLite file (shared for the while: src/db/sqlite-sharing.ts),
 * writing index rows as the node's connection would (index-store.ts `writeSqlite`), each batch in a transaction
 * that takes the write lock at once. The node's connection keeps reading meanwhile (WAL); its own writes wait for
 * the batch being written (busy_timeout), then go before the thread's next one. The caller notes the PIDs in the node's index change log once the
 * batch has committed.
 */
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import type { IndexRows } from "../../search/index-rows.ts";
import type { Tables } from "../schema.ts";
import { preparedOnce } from "../sqlite-handle.ts";
import { waitForTurn } from "../sqlite-sharing.ts";
import { writeSqlite } from "./index-store.ts";
import { finishRebuild } from "./rebuild-state.ts";
import { inTurn } from "./writer-turns.ts";

export interface ThreadWriter {
  /** Write the rows in one transaction; resolves once it has committed. */
  write(rows: IndexRows[]): Promise<void>;
  /** Build the indexes the rebuild dropped and forget it (rebuild-state.ts), on this connection. */
  finishRebuild(): Promise<void>;
  close(): Promise<void>;
}

/** How long a batch waits for the write lock (the node's own transactions are short). */
const BUSY_MS = 60_000;

/** `turns`: shared by the writing threads (writer-turns.ts), so the lock passes from one to the other at once. */
export function openThreadWriter(file: string, nodeWaiting?: Int32Array, turns?: Int32Array): ThreadWriter {
  const handle = new SQLite(file, { fileMustExist: true });
  handle.pragma(`busy_timeout = ${BUSY_MS}`);
  handle.pragma("synchronous = NORMAL");
  handle.pragma("cache_size = -16384");
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
  return {
    write: (rows) => inTurn(turns, () => db.transaction().execute((tx) => writeSqlite(tx, rows))),
    finishRebuild: () => finishRebuild({ kysely: db, dialect: "sqlite" }),
    close: () => db.destroy(),
  };
}
