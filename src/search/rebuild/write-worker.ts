/**
 * SQLite's writing thread of a bulk rebuild (extract-pool.ts): the rows the extraction threads make come here,
 * and this thread alone writes them, on its own connection to the node's file (shared for the while:
 * src/db/engine/sqlite-sharing.ts), in transactions of WRITE_CHUNK documents. One writer, not one per extraction
 * thread: SQLite takes one writer at a time anyway, and a connection drops its whole page cache whenever another
 * connection has committed, so two writing connections in turn read the index's pages again for every
 * transaction (docs/decisions.md, "Full rebuild: one writing thread"). The rebuild's progress is noted here too,
 * for the same reason. The node's connection keeps reading meanwhile (WAL); its own writes wait for the
 * transaction under way, then go before the next one.
 * In (node's thread): { id, finishRebuild: true }, { id, progressed: pid } or "close"; (extraction threads)
 * { id, rows }. Out (node's thread): { id, written: true } or { id, error }; { id, end } as the indexes are built.
 */
import { parentPort, workerData } from "node:worker_threads";
import { openThreadWriter } from "../store/thread-writer.ts";
import {
  codeField,
  type ExtractReply,
  type RowsToWrite,
  type WriterRequest,
  type WriteWorkerData,
} from "./extract-messages.ts";

/**
 * Documents per transaction: the node's own writes wait for at most one of them. Each commit writes the pages
 * its rows dirtied and adds a segment to the FTS5 terms that later merges read again, so fewer commits cost
 * less a document.
 */
const WRITE_CHUNK = 500;

const port = parentPort;
if (!port) throw new Error("write-worker must run in a worker thread");
const { sqliteFile, nodeWaiting, rowsFrom } = workerData as WriteWorkerData;
const writer = openThreadWriter(sqliteFile, nodeWaiting);
let closed = false;

/** Everything this thread does, one after the other (one connection, one transaction at a time). */
let queue = Promise.resolve();
const next = (work: () => Promise<void>) => {
  queue = queue.then(work);
};

for (const from of rowsFrom)
  from.on("message", ({ id, rows }: RowsToWrite) =>
    next(() =>
      answer(id, async () => {
        for (let i = 0; i < rows.length; i += WRITE_CHUNK) await writer.write(rows.slice(i, i + WRITE_CHUNK));
      }),
    ),
  );

port.on("message", (message: WriterRequest | "close") =>
  next(() => {
    if (message === "close") return close();
    const { id } = message;
    return "finishRebuild" in message
      ? answer(id, () => writer.finishRebuild((end) => port?.postMessage({ id, end } satisfies ExtractReply)))
      : answer(id, () => writer.progressed(message.progressed));
  }),
);

async function answer(id: number, work: () => Promise<void>): Promise<void> {
  let reply: ExtractReply;
  try {
    if (closed) throw new Error("the rebuild's writing thread has closed its connection");
    await work();
    reply = { id, written: true };
  } catch (error) {
    reply = { id, error: (error as Error).message, ...codeField(error) };
  }
  port?.postMessage(reply);
}

/** The connection closed before the thread ends (the node then takes its file back: sqlite-sharing.ts). */
async function close(): Promise<void> {
  closed = true;
  await writer.close();
  for (const from of rowsFrom) from.close();
  port?.close();
}
