/**
 * The COPY text of the search-scale load made by worker threads, chunk after chunk in order: each thread makes
 * every `threads`-th chunk, one chunk ahead of the one being written. With no threads, made on this one.
 */
import { Worker } from "node:worker_threads";
import { type ChunkText, chunkText } from "./scale-search-rows.ts";

/** The rows are made of many short-lived strings: a larger young generation spares scavenges. */
const YOUNG_GENERATION_MB = 96;

export interface ChunkSource {
  /** Chunk `index` (documents [index * size, (index + 1) * size) below `count`); asked for in order. */
  next(): Promise<ChunkText | undefined>;
  close(): Promise<void>;
}

export function chunkSource(count: number, size: number, threads: number): ChunkSource {
  const chunks = Math.ceil(count / size);
  const range = (i: number) => ({ from: i * size, to: Math.min(count, (i + 1) * size) });
  let index = 0;
  if (threads <= 0) {
    return {
      next: async () => {
        if (index >= chunks) return undefined;
        const { from, to } = range(index++);
        return chunkText(from, to);
      },
      close: async () => undefined,
    };
  }
  const workers = Array.from({ length: threads }, startWorker);
  const pending = new Map<number, Promise<ChunkText>>();
  const ask = (i: number) => {
    if (i >= chunks) return;
    const worker = workers[i % threads] as Worker;
    pending.set(
      i,
      new Promise((resolve, reject) => {
        const failed = (error: Error) => reject(error);
        worker.once("error", failed);
        worker.once("message", (text: { docs: Uint8Array; values: Uint8Array }) => {
          worker.off("error", failed);
          resolve({ docs: asBuffer(text.docs), values: asBuffer(text.values) });
        });
      }),
    );
    worker.postMessage(range(i));
  };
  for (let i = 0; i < threads; i++) ask(i);
  return {
    async next() {
      const chunk = pending.get(index);
      if (!chunk) return undefined;
      pending.delete(index);
      const text = await chunk;
      ask(index + threads);
      index++;
      return text;
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The worker module beside this one, through tsx when the sources run directly (as the bench runs them). */
function startWorker(): Worker {
  const file = new URL("./scale-search-worker.ts", import.meta.url).href;
  const api = import.meta.resolve("tsx/esm/api");
  const boot = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(file)}); })`;
  return new Worker(boot, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
}
