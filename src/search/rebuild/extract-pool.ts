/**
 * Threads that turn objects into index rows while the caller writes the previous batch (a rebuild uses both
 * cores: one parses XML, the other runs SQL). Given a SQLite file shared with them or PostgreSQL's URL, the
 * threads also write the rows (each on its own connection), and the caller's thread only reads pages. With
 * `threads: 0` the rows are made in the calling thread. A thread that dies fails its pending batches; the pool
 * then makes rows in the calling thread (for the caller to write).
 */
import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { writerTurns } from "../../db/search/writer-turns.ts";
import type { SharedSqlite } from "../../db/sqlite-sharing.ts";
import type { IndexRows } from "../index-rows.ts";
import type { ExtractItem, ExtractReply, ExtractRequest, ExtractWorkerData } from "./extract-messages.ts";
import { itemRows } from "./item-rows.ts";

export interface ExtractPool {
  /** The items' rows, in order; or "written" when a thread wrote and committed them. */
  rows(items: ExtractItem[]): Promise<IndexRows[] | "written">;
  /** A SQLite writing thread builds the rebuild's dropped indexes; false: the caller's connection does. */
  finishRebuild(): Promise<boolean>;
  close(): Promise<void>;
}

interface Pending {
  resolve(rows: IndexRows[] | "written"): void;
  reject(error: Error): void;
}

/** How long a closing thread may take to finish its batch and close its connection. */
const CLOSE_MS = 120_000;

/** Where the threads write the rows themselves: the SQLite file shared with them, or PostgreSQL by its URL. */
export type ThreadWrites = { sqlite: SharedSqlite } | { postgresUrl: string };

export function createExtractPool(threads: number, writes?: ThreadWrites): ExtractPool {
  const shared = writes && "sqlite" in writes ? writes.sqlite : undefined;
  const data: ExtractWorkerData = shared
    ? { sqliteFile: shared.file, nodeWaiting: shared.nodeWaiting, writerTurns: writerTurns() }
    : writes && "postgresUrl" in writes
      ? { postgresUrl: writes.postgresUrl }
      : {};
  const workers = Array.from({ length: threads }, () => startWorker(data));
  const exited = new Set<Worker>();
  const pending = new Map<number, Pending>();
  let nextId = 0;
  let broken = false;
  for (const worker of workers) {
    worker.on("message", (reply: ExtractReply) => {
      const waiting = pending.get(reply.id);
      pending.delete(reply.id);
      if ("error" in reply) waiting?.reject(new Error(reply.error));
      else waiting?.resolve("written" in reply ? "written" : reply.rows);
    });
    worker.on("exit", () => exited.add(worker));
    worker.on("error", (error) => {
      broken = true;
      for (const waiting of pending.values()) waiting.reject(error);
      pending.clear();
    });
  }
  const send = (worker: Worker, request: ExtractRequest) => {
    const promise = new Promise<IndexRows[] | "written">((resolve, reject) =>
      pending.set(request.id, { resolve, reject }),
    );
    worker.postMessage(request);
    return promise;
  };
  return {
    rows(items) {
      const worker = workers[nextId % Math.max(workers.length, 1)];
      if (!worker || broken) return Promise.resolve(items.map(itemRows));
      return send(worker, { id: nextId++, items });
    },
    async finishRebuild() {
      const worker = workers[0];
      if (!shared || !worker || broken) return false;
      await send(worker, { id: nextId++, finishRebuild: true });
      return true;
    },
    async close() {
      await Promise.all(workers.map((worker) => (exited.has(worker) ? undefined : closeWorker(worker))));
    },
  };
}

/** Let the thread close its connection, then end it (at once if it does not within CLOSE_MS). */
async function closeWorker(worker: Worker): Promise<void> {
  const exited = once(worker, "exit").catch(() => undefined);
  worker.postMessage("close");
  const timer = setTimeout(() => void worker.terminate(), CLOSE_MS);
  await exited;
  clearTimeout(timer);
}

/**
 * The worker runs the module beside this one: compiled JavaScript, or TypeScript when the sources run directly
 * (through tsx, registered in the thread first: loader hooks of the main thread do not reach a worker here).
 */
function startWorker(workerData: ExtractWorkerData): Worker {
  if (!import.meta.url.endsWith(".ts"))
    return new Worker(new URL("./extract-worker.js", import.meta.url), { workerData });
  const file = new URL("./extract-worker.ts", import.meta.url).href;
  const api = import.meta.resolve("tsx/esm/api");
  const boot = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(file)}); })`;
  return new Worker(boot, { eval: true, workerData });
}
