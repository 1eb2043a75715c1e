/** A thread of the search-scale load: makes the COPY text of the document ranges it is sent. */
import { parentPort } from "node:worker_threads";
import { chunkText } from "./scale-search-rows.ts";

parentPort?.on("message", (range: { from: number; to: number } | "close") => {
  if (range === "close") {
    parentPort?.close();
    return;
  }
  parentPort?.postMessage(chunkText(range.from, range.to));
});
