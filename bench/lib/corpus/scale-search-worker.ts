/** A thread of the search-scale load: makes the COPY text of the document ranges it is sent. */
import { parentPort } from "node:worker_threads";
import { chunkText } from "./scale-search-rows.ts";

parentPort?.on("message", (range: { from: number; to: number } | "close") => {
  if (range === "close") {
    parentPort?.close();
    return;
  }
  const { docs, values } = chunkText(range.from, range.to);
  // Handed over, not copied (Buffers this large own their memory).
  parentPort?.postMessage({ docs, values }, [docs.buffer as ArrayBuffer, values.buffer as ArrayBuffer]);
});
