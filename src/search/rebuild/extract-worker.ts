/**
 * A worker thread of a bulk rebuild (extract-pool.ts): objects' bytes -> index rows (XML parsing, extraction,
 * tokens, the stored JSON), so that the writing thread spends its time on SQL.
 * In: { id, items: ExtractItem[] }. Out: { id, rows: IndexRows[] } or { id, error }.
 */
import { parentPort } from "node:worker_threads";
import type { ExtractReply, ExtractRequest } from "./extract-messages.ts";
import { itemRows } from "./item-rows.ts";

const port = parentPort;
if (!port) throw new Error("extract-worker must run in a worker thread");

port.on("message", ({ id, items }: ExtractRequest) => {
  let reply: ExtractReply;
  try {
    reply = { id, rows: items.map(itemRows) };
  } catch (error) {
    reply = { id, error: (error as Error).message };
  }
  port.postMessage(reply);
});
