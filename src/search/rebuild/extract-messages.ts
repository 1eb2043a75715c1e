/** What the node's thread, the extraction threads and the writing thread of a rebuild send each other. */
import type { MessagePort } from "node:worker_threads";
import { codeOf } from "../../db/engine/storage-full.ts";
import type { SearchDocument } from "../schema/document.ts";
import type { IndexRows } from "../schema/index-rows.ts";
import type { RebuildEnd } from "../store/rebuild-state.ts";

/** One object to make rows of: its system-metadata (and package) fields and, when the index reads them, bytes. */
export interface ExtractItem {
  pid: string;
  formatId: string;
  sysmeta: SearchDocument;
  bytes?: Uint8Array;
}

/** To an extraction thread: rows to make (and have written). */
export type ExtractRequest = { id: number; items: ExtractItem[] };

/**
 * To SQLite's writing thread, from the node's thread: the rebuild's dropped indexes to build, or its progress to
 * note (rebuild-state.ts), on the writing thread's connection.
 */
export type WriterRequest = { id: number; finishRebuild: true } | { id: number; progressed: string };

/** From an extraction thread to SQLite's writing thread: a page's rows to write. */
export interface RowsToWrite {
  id: number;
  rows: IndexRows[];
}

/**
 * The rows made, or that they are written and committed (or the request done); or why not. While the writing
 * thread builds the rebuild's indexes, how far it is (the request still under way).
 */
export type ExtractReply =
  | { id: number; rows: IndexRows[] }
  | { id: number; written: true }
  | { id: number; error: string; code?: string }
  | { id: number; end: RebuildEnd };

/**
 * An extraction thread's start: with `rowsTo` it sends the rows to SQLite's writing thread, with `postgresUrl`
 * it writes them itself on a connection of its own; else it answers with them.
 */
export interface ExtractWorkerData {
  rowsTo?: MessagePort;
  postgresUrl?: string;
}

/**
 * SQLite's writing thread's start: the file shared for the rebuild, the word that says the node's connection
 * waits for the write lock (src/db/engine/sqlite-sharing.ts), and a port from each extraction thread.
 */
export interface WriteWorkerData {
  sqliteFile: string;
  nodeWaiting: Int32Array;
  rowsFrom: MessagePort[];
}

/** An error's code for a reply (a full disk is told apart from other failures on the node's side). */
export function codeField(error: unknown): { code?: string } {
  const code = codeOf(error);
  return code === undefined ? {} : { code };
}

/** A reply's error as an Error again, its code with it. */
export function replyError(reply: { error: string; code?: string }): Error {
  return Object.assign(new Error(reply.error), reply.code === undefined ? {} : { code: reply.code });
}
