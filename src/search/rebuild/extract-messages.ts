/** What the writing thread and the extraction threads of a rebuild send each other (plain, cloneable data). */
import type { SearchDocument } from "../document.ts";
import type { IndexRows } from "../index-rows.ts";

/** One object to make rows of: its system-metadata (and package) fields and, when the index reads them, bytes. */
export interface ExtractItem {
  pid: string;
  formatId: string;
  sysmeta: SearchDocument;
  bytes?: Uint8Array;
}

/** Rows to make (and write), or (a writing thread) the rebuild's dropped indexes to build. */
export type ExtractRequest = { id: number; items: ExtractItem[] } | { id: number; finishRebuild: true };

/** The rows made, or (a thread given the SQLite file) that they are written and committed; or why not. */
export type ExtractReply =
  | { id: number; rows: IndexRows[] }
  | { id: number; written: true }
  | { id: number; error: string };

/**
 * A thread's start: with `sqliteFile` (or `postgresUrl`) it writes the rows itself, on a connection of its own;
 * on SQLite letting the node's connection take the write lock first while `nodeWaiting` says it waits
 * (src/db/sqlite-sharing.ts).
 */
export interface ExtractWorkerData {
  sqliteFile?: string;
  nodeWaiting?: Int32Array;
  /** Shared by the SQLite writing threads: whose turn at the write lock (src/db/search/writer-turns.ts). */
  writerTurns?: Int32Array;
  /** PostgreSQL: the thread writes the rows itself, on a connection of its own. */
  postgresUrl?: string;
}
