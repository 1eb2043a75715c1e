/**
 * Threads that turn objects into index rows while the caller reads the next page (a rebuild uses both cores).
 * Given a SQLite file shared with them, the extraction threads send their rows to one writing thread
 * (write-worker.ts); given PostgreSQL's URL, each extraction thread writes its own rows on its own connection.
 * Either way the caller's thread only reads pages. With `threads: 0` the rows are made in the calling thread. A
 * thread that dies fails the pending batches; the pool then makes rows in the calling thread (for the caller to
 * write).
 */
import { once } from "node:events";
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import type { SharedSqlite } from "../../db/engine/sqlite-sharing.ts";
import type { IndexRows } from "../schema/index-rows.ts";
import type { RebuildEnd } from "../store/rebuild-state.ts";
import {
  type ExtractItem,
  type ExtractReply,
  type ExtractRequest,
  type ExtractWorkerData,
  replyError,
  type WriterRequest,
  type WriteWorkerData,
} from "./extract-messages.ts";
import { itemRows } from "./item-rows.ts";
import { withLargeYoungGeneration } from "./young-generation.ts";

export interface ExtractPool {
  /** The items' rows, in order; or "written" when a thread wrote and committed them. */
  rows(items: ExtractItem[]): Promise<IndexRows[] | "written">;
  /**
   * SQLite's writing thread notes the rebuild's progress after the rows it has (its queue: nothing waits for
   * it); false: the caller's connection must. A failure fails `finishRebuild`.
   */
  progressed(after: string): boolean;
  /**
   * SQLite's writing thread builds the rebuild's dropped indexes, telling `onEnd` how far it is; false: the
   * caller's connection does.
   */
  finishRebuild(onEnd?: (end: RebuildEnd) => void): Promise<boolean>;
  close(): Promise<void>;
}

interface Pending {
  resolve(rows: IndexRows[] | "written"): void;
  reject(error: Error): void;
  /** The end of a rebuild, as the writing thread reports it. */
  onEnd?: (end: RebuildEnd) => void;
}

/** How long a closing thread may take to finish its batch and close its connection. */
const CLOSE_MS = 120_000;

/** Where the threads write the rows themselves: the SQLite file shared with them, or PostgreSQL by its URL. */
export type ThreadWrites = { sqlite: SharedSqlite } | { postgresUrl: string };

export function createExtractPool(threads: number, writes?: ThreadWrites): ExtractPool {
  const shared = writes && "sqlite" in writes ? writes.sqlite : undefined;
  const postgresUrl = writes && "postgresUrl" in writes ? writes.postgresUrl : undefined;
  // SQLite: a port from each extraction thread to the writing thread.
  const channels = shared && threads > 0 ? Array.from({ length: threads }, () => new MessageChannel()) : [];
  const extractors = Array.from({ length: threads }, (_, i) => {
    const rowsTo = channels[i]?.port1;
    const data: ExtractWorkerData = rowsTo ? { rowsTo } : postgresUrl ? { postgresUrl } : {};
    return startWorker("extract-worker", data, rowsTo ? [rowsTo] : []);
  });
  const rowsFrom = channels.map((channel) => channel.port2);
  const writer =
    shared && channels.length > 0
      ? startWorker(
          "write-worker",
          { sqliteFile: shared.file, nodeWaiting: shared.nodeWaiting, rowsFrom } satisfies WriteWorkerData,
          rowsFrom,
        )
      : undefined;
  const workers = writer ? [...extractors, writer] : extractors;
  const exited = new Set<Worker>();
  const pending = new Map<number, Pending>();
  let nextId = 0;
  /** Pages sent so far: they go round the extraction threads in turn. */
  let pages = 0;
  let broken = false;
  let progressFailed: Error | undefined;
  for (const worker of workers) {
    worker.on("message", (reply: ExtractReply) => {
      const waiting = pending.get(reply.id);
      if ("end" in reply) return waiting?.onEnd?.(reply.end);
      pending.delete(reply.id);
      if ("error" in reply) waiting?.reject(replyError(reply));
      else waiting?.resolve("written" in reply ? "written" : reply.rows);
    });
    worker.on("exit", () => exited.add(worker));
    worker.on("error", (error) => {
      broken = true;
      for (const waiting of pending.values()) waiting.reject(error);
      pending.clear();
    });
  }
  const send = (
    worker: Worker,
    request: ExtractRequest | WriterRequest,
    onEnd?: (end: RebuildEnd) => void,
  ) => {
    const promise = new Promise<IndexRows[] | "written">((resolve, reject) =>
      pending.set(request.id, { resolve, reject, ...(onEnd ? { onEnd } : {}) }),
    );
    worker.postMessage(request);
    return promise;
  };
  return {
    rows(items) {
      const worker = extractors[pages++ % Math.max(extractors.length, 1)];
      if (!worker || broken) return Promise.resolve(items.map(itemRows));
      return send(worker, { id: nextId++, items });
    },
    progressed(after) {
      if (!writer || broken) return false;
      send(writer, { id: nextId++, progressed: after }).catch((error: Error) => {
        progressFailed ??= error;
      });
      return true;
    },
    async finishRebuild(onEnd) {
      if (!writer || broken) return false;
      await send(writer, { id: nextId++, finishRebuild: true }, onEnd);
      if (progressFailed) throw progressFailed;
      return true;
    },
    async close() {
      // The extraction threads first: the writing thread then has every page they sent.
      await Promise.all(extractors.map((worker) => (exited.has(worker) ? undefined : closeWorker(worker))));
      if (writer && !exited.has(writer)) await closeWorker(writer);
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
 * The worker runs a module beside this one: compiled JavaScript, or TypeScript when the sources run directly
 * (through tsx, registered in the thread first: loader hooks of the main thread do not reach a worker here).
 */
function startWorker(
  name: "extract-worker" | "write-worker",
  workerData: ExtractWorkerData | WriteWorkerData,
  transferList: MessagePort[],
): Worker {
  if (!import.meta.url.endsWith(".ts"))
    return withLargeYoungGeneration(
      () => new Worker(new URL(`./${name}.js`, import.meta.url), { workerData, transferList }),
    );
  const file = new URL(`./${name}.ts`, import.meta.url).href;
  const api = import.meta.resolve("tsx/esm/api");
  const boot = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(file)}); })`;
  return withLargeYoungGeneration(() => new Worker(boot, { eval: true, workerData, transferList }));
}
