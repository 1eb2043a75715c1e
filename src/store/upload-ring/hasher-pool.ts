/**
 * Hasher threads shared by all concurrent uploads. Bytes travel through a ring of SharedArrayBuffer slots:
 * the caller copies a chunk into a free slot, each thread involved hashes it for the upload (job) it belongs
 * to and acknowledges, and the caller releases the slot once it has also written it out. When no slot is free
 * `acquire()` waits, which is the backpressure on the readers.
 */
import { Worker } from "node:worker_threads";
import { balance, type HashKey } from "../algorithms.ts";
import { DIRECT_ALIGN } from "./direct-io.ts";

/** One slot of the ring: `bytes` is a view of shared memory, `slotSize` long. */
export interface Slot {
  readonly index: number;
  readonly bytes: Uint8Array;
}

export interface HashJob {
  /** Hash the first `length` bytes of `slot`; resolves when every thread involved is done with them. */
  update(slot: Slot, length: number): Promise<void>;
  /** Hex digests of everything passed to `update`, by hash. */
  finish(): Promise<HexDigests>;
  /** Forget the job (after a failure). */
  drop(): void;
}

export interface HasherPool {
  readonly slotSize: number;
  /** Whether full slots may be written with O_DIRECT (see `slotOffset`). */
  readonly direct: boolean;
  /** True once a thread failed; the pool then refuses work and a new one should be made. */
  readonly broken: boolean;
  acquire(signal?: AbortSignal): Promise<Slot>;
  /** A free slot now, or undefined when none is free or others are waiting for one (they go first). */
  tryAcquire(): Slot | undefined;
  release(slot: Slot): void;
  open(hashes: readonly HashKey[]): HashJob;
  close(): Promise<void>;
}

export interface HasherPoolOptions {
  /** Hasher threads (default 2). */
  threads?: number;
  /** Slots in the ring (default 16). */
  slots?: number;
  /** Bytes per slot (default 1 MiB). */
  slotSize?: number;
  /**
   * Where in the shared memory (given DIRECT_ALIGN bytes of slack) the slots must start for direct writes, or
   * undefined when direct writes are not possible: then the slots start at 0 and `direct` is false.
   */
  slotOffset?: (buffer: SharedArrayBuffer) => number | undefined;
  /**
   * Whether open jobs keep the process alive (default true). False for jobs that outlive a request (a resumable
   * upload's, open from its first byte to its create): the server's sockets keep the process alive meanwhile.
   */
  holdProcess?: boolean;
}

// Message tags, as in hash-worker.mjs.
const BEGIN = 0;
const UPDATE = 1;
const END = 2;
const DROP = 3;
const ACK = 0;
const DIGEST = 1;

/** Hex digests by hash. */
export type HexDigests = Partial<Record<HashKey, string>>;

interface Waiter {
  resolve(slot: Slot): void;
  reject(error: unknown): void;
}

export function createHasherPool(options: HasherPoolOptions = {}): HasherPool {
  const threads = options.threads ?? 2;
  const slotSize = options.slotSize ?? 1 << 20;
  const slack = options.slotOffset ? DIRECT_ALIGN : 0;
  const buffer = new SharedArrayBuffer((options.slots ?? 16) * slotSize + slack);
  const offset = options.slotOffset?.(buffer);
  const base = offset ?? 0;
  const free: Slot[] = [];
  for (let index = (options.slots ?? 16) - 1; index >= 0; index--) {
    free.push({ index, bytes: new Uint8Array(buffer, base + index * slotSize, slotSize) });
  }
  const waiters: Waiter[] = [];
  const acks = new Map<number, { left: number; resolve(): void; reject(error: unknown): void }>();
  const digests = new Map<
    number,
    { left: number; values: HexDigests; resolve(v: HexDigests): void; reject(e: unknown): void }
  >();
  let failure: Error | undefined;
  let closed = false;
  let nextJob = 1;
  let openJobs = 0;

  const fail = (error: Error) => {
    if (failure) return;
    failure = error;
    for (const w of waiters.splice(0)) w.reject(error);
    for (const a of acks.values()) a.reject(error);
    for (const d of digests.values()) d.reject(error);
    acks.clear();
    digests.clear();
    // Referenced again so that the process waits for them to stop.
    for (const worker of workers) {
      worker.ref();
      void worker.terminate();
    }
  };

  const onMessage = (message: [number, number, HexDigests?]) => {
    const [op, id, values] = message;
    if (op === ACK) {
      const ack = acks.get(id);
      if (ack && --ack.left === 0) {
        acks.delete(id);
        ack.resolve();
      }
    } else if (op === DIGEST) {
      const pending = digests.get(id);
      if (!pending) return;
      Object.assign(pending.values, values);
      if (--pending.left === 0) {
        digests.delete(id);
        pending.resolve(pending.values);
      }
    }
  };

  const workers = Array.from({ length: threads }, () => {
    // No TypeScript loader needed (plain .mjs), so no inherited exec options either.
    const worker = new Worker(new URL("./hash-worker.mjs", import.meta.url), {
      workerData: { buffer, slotSize, base },
      execArgv: [],
      // Hashing allocates almost nothing on the JS heap: small heaps keep each thread's memory low.
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
    });
    worker.unref();
    worker.on("message", onMessage);
    worker.on("error", fail);
    worker.on("exit", (code) => {
      if (!closed) fail(new Error(`A hasher thread exited (code ${code}).`));
    });
    return worker;
  });

  // Threads keep the process alive only while some upload waits on them.
  const holdProcess = options.holdProcess ?? true;
  const jobOpened = () => {
    if (openJobs++ === 0 && holdProcess) for (const w of workers) w.ref();
  };
  const jobClosed = () => {
    if (--openJobs === 0 && !failure && holdProcess) for (const w of workers) w.unref();
  };

  return {
    slotSize,
    direct: offset !== undefined && slotSize % DIRECT_ALIGN === 0,
    get broken() {
      return failure !== undefined;
    },

    acquire(signal) {
      if (failure) return Promise.reject(failure);
      if (signal?.aborted) return Promise.reject(signal.reason);
      const slot = free.pop();
      if (slot) return Promise.resolve(slot);
      return new Promise<Slot>((resolve, reject) => {
        const onAbort = () => {
          const at = waiters.indexOf(waiter);
          if (at >= 0) waiters.splice(at, 1);
          reject(signal?.reason);
        };
        const waiter: Waiter = {
          resolve(s) {
            signal?.removeEventListener("abort", onAbort);
            resolve(s);
          },
          reject(error) {
            signal?.removeEventListener("abort", onAbort);
            reject(error);
          },
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        waiters.push(waiter);
      });
    },

    tryAcquire() {
      return failure || waiters.length > 0 ? undefined : free.pop();
    },

    release(slot) {
      const waiter = waiters.shift();
      if (waiter) waiter.resolve(slot);
      else free.push(slot);
    },

    open(hashes) {
      if (failure) throw failure;
      const job = nextJob++;
      const involved: Worker[] = [];
      balance(hashes, threads).forEach((group, i) => {
        const worker = workers[i];
        if (group.length === 0 || !worker) return;
        involved.push(worker);
        worker.postMessage([BEGIN, job, group]);
      });
      jobOpened();
      let done = false;
      const close = () => {
        if (done) return;
        done = true;
        jobClosed();
      };
      return {
        update(slot, length) {
          if (failure) return Promise.reject(failure);
          return new Promise<void>((resolve, reject) => {
            acks.set(slot.index, { left: involved.length, resolve, reject });
            for (const w of involved) w.postMessage([UPDATE, job, slot.index, length]);
          });
        },
        finish() {
          if (failure) return Promise.reject(failure);
          const result = new Promise<HexDigests>((resolve, reject) => {
            digests.set(job, { left: involved.length, values: {}, resolve, reject });
            for (const w of involved) w.postMessage([END, job]);
          });
          return result.finally(close);
        },
        drop() {
          if (done) return;
          if (!failure) for (const w of involved) w.postMessage([DROP, job]);
          close();
        },
      };
    },

    async close() {
      if (closed) return;
      closed = true;
      fail(new Error("The object store is closed."));
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
