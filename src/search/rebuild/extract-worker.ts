/**
 * An extraction thread of a bulk rebuild (extract-pool.ts): objects' bytes -> index rows (XML parsing,
 * extraction, tokens, the stored JSON), so that neither the rows nor the writes weigh on the node's thread.
 * SQLite: the rows go to the one writing thread (write-worker.ts), which answers for them. PostgreSQL: the thread
 * writes them itself on its own connection, the page in one transaction. Else it answers with the rows.
 * In: { id, items: ExtractItem[] }. Out: { id, rows }, { id, written: true } or { id, error }.
 */
import { parentPort, workerData } from "node:worker_threads";
import { openPostgresThreadWriter } from "../store/postgres-thread-writer.ts";
import {
  codeField,
  type ExtractReply,
  type ExtractRequest,
  type ExtractWorkerData,
  type RowsToWrite,
} from "./extract-messages.ts";
import { itemRows } from "./item-rows.ts";

const port = parentPort;
if (!port) throw new Error("extract-worker must run in a worker thread");
const { rowsTo, postgresUrl } = (workerData ?? {}) as ExtractWorkerData;
// PostgreSQL: a writer holds no lock that the node waits for, so each thread writes its own pages.
const writer = postgresUrl ? openPostgresThreadWriter(postgresUrl) : undefined;

/** Requests are handled one after the other (one connection, one transaction at a time). */
let queue = Promise.resolve();

port.on("message", (message: ExtractRequest | "close") => {
  queue = queue.then(() => (message === "close" ? close() : handle(message)));
});

async function handle({ id, items }: ExtractRequest): Promise<void> {
  let reply: ExtractReply;
  try {
    const rows = items.map(itemRows);
    if (rowsTo) {
      rowsTo.postMessage({ id, rows } satisfies RowsToWrite);
      return;
    }
    if (writer) {
      await writer.write(rows);
      reply = { id, written: true };
    } else reply = { id, rows };
  } catch (error) {
    reply = { id, error: (error as Error).message, ...codeField(error) };
  }
  port?.postMessage(reply);
}

/** The connection (or the port to the writing thread) closed before the thread ends. */
async function close(): Promise<void> {
  await writer?.close();
  rowsTo?.close();
  port?.close();
}
