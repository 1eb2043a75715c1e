/**
 * A worker thread of a bulk rebuild (extract-pool.ts): objects' bytes -> index rows (XML parsing, extraction,
 * tokens, the stored JSON), so that the writing thread spends its time on SQL. Given the SQLite file (shared by
 * the node for the rebuild) or the PostgreSQL URL, it also writes the rows on its own connection, in transactions
 * of WRITE_CHUNK documents, so that neither the rows nor the writes weigh on the node's thread.
 * It also builds the indexes a rebuild dropped, when asked ({ id, finishRebuild: true }), so that the node's
 * thread keeps answering meanwhile.
 * In: { id, items: ExtractItem[] }. Out: { id, rows: IndexRows[] }, { id, written: true } or { id, error }.
 */
import { parentPort, workerData } from "node:worker_threads";
import { openPostgresThreadWriter } from "../../db/search/postgres-thread-writer.ts";
import { openThreadWriter, type ThreadWriter } from "../../db/search/thread-writer.ts";
import type { ExtractReply, ExtractRequest, ExtractWorkerData } from "./extract-messages.ts";
import { itemRows } from "./item-rows.ts";

/**
 * Documents per transaction of a writing thread: the node's own writes wait for at most one of them. 250, not
 * 100: each commit writes the pages its values dirtied all over the search_values key, and fewer commits cost
 * ~0.15 ms less CPU per document (docs/decisions.md).
 */
const WRITE_CHUNK = 250;

const port = parentPort;
if (!port) throw new Error("extract-worker must run in a worker thread");
const { sqliteFile, nodeWaiting, writerTurns, postgresUrl } = (workerData ?? {}) as ExtractWorkerData;
const writer: ThreadWriter | undefined = sqliteFile
  ? openThreadWriter(sqliteFile, nodeWaiting, writerTurns)
  : postgresUrl
    ? openPostgresThreadWriter(postgresUrl)
    : undefined;

/** Requests are handled one after the other (one connection, one transaction at a time). */
let queue = Promise.resolve();

port.on("message", (message: ExtractRequest | "close") => {
  queue = queue.then(() => (message === "close" ? close() : handle(message)));
});

async function handle(request: ExtractRequest): Promise<void> {
  const { id } = request;
  let reply: ExtractReply;
  try {
    if ("finishRebuild" in request) {
      if (!writer) throw new Error("only a writing thread builds the rebuild's indexes");
      await writer.finishRebuild();
      port?.postMessage({ id, written: true });
      return;
    }
    const rows = request.items.map(itemRows);
    if (writer) {
      // PostgreSQL: the page in one transaction (a PostgreSQL writer holds no lock that the node waits for).
      const chunk = postgresUrl ? rows.length : WRITE_CHUNK;
      for (let i = 0; i < rows.length; i += chunk) await writer.write(rows.slice(i, i + chunk));
      reply = { id, written: true };
    } else reply = { id, rows };
  } catch (error) {
    reply = { id, error: (error as Error).message };
  }
  port?.postMessage(reply);
}

/** The connection closed before the thread ends (the node then takes its file back: sqlite-sharing.ts). */
async function close(): Promise<void> {
  await writer?.close();
  port?.close();
}
