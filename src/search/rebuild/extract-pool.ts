/**
 * Threads that turn objects into index rows while the caller writes the previous batch (a rebuild uses both
 * cores: one parses XML, the other runs SQL). With `threads: 0` the rows are made in the calling thread.
 * A thread that dies fails its pending batches; the pool then makes rows in the calling thread.
 */
import { Worker } from "node:worker_threads";
import type { IndexRows } from "../index-rows.ts";
import type { ExtractItem, ExtractReply } from "./extract-messages.ts";
import { itemRows } from "./item-rows.ts";

export interface ExtractPool {
  /** The items' rows, in order. */
  rows(items: ExtractItem[]): Promise<IndexRows[]>;
  close(): Promise<void>;
}

interface Pending {
  resolve(rows: IndexRows[]): void;
  reject(error: Error): void;
}

export function createExtractPool(threads: number): ExtractPool {
  const workers = Array.from({ length: threads }, startWorker);
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let broken = false;
  for (const worker of workers) {
    worker.on("message", (reply: ExtractReply) => {
      const waiting = pending.get(reply.id);
      pending.delete(reply.id);
      if ("error" in reply) waiting?.reject(new Error(reply.error));
      else waiting?.resolve(reply.rows);
    });
    worker.on("error", (error) => {
      broken = true;
      for (const waiting of pending.values()) waiting.reject(error);
      pending.clear();
    });
  }
  return {
    rows(items) {
      const worker = workers[nextId % Math.max(workers.length, 1)];
      if (!worker || broken) return Promise.resolve(items.map(itemRows));
      const id = nextId++;
      const promise = new Promise<IndexRows[]>((resolve, reject) => pending.set(id, { resolve, reject }));
      worker.postMessage({ id, items });
      return promise;
    },
    async close() {
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}

/**
 * The worker runs the module beside this one: compiled JavaScript, or TypeScript through the tsx loader when the
 * sources run directly (bin/d1node registers tsx in the main thread only; a worker needs it on its command line).
 */
function startWorker(): Worker {
  const typescript = import.meta.url.endsWith(".ts");
  const file = new URL(`./extract-worker.${typescript ? "ts" : "js"}`, import.meta.url);
  const loaded = process.execArgv.some((arg) => arg.includes("tsx"));
  const execArgv =
    typescript && !loaded ? [...process.execArgv, "--import", import.meta.resolve("tsx")] : undefined;
  const worker = new Worker(file, execArgv ? { execArgv } : {});
  return worker;
}
