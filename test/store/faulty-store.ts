/**
 * A fault-injecting `ObjectStore` decorator for tests: the wrapped store fails, slows down or tears writes when
 * told to, so that tests can show the write path keeps its guarantees (old state or new, nothing stored for a
 * refused write, nothing left that no one will collect) whatever the store does.
 */
import { Readable, Transform } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import type { ObjectStore, StagedObject } from "../../src/store/types.ts";

export interface Faults {
  /** Staging fails with EIO once this many bytes have gone in (the store's own write fails). */
  failStageAfterBytes?: number;
  /**
   * Torn write: staging stops after this many bytes as a crashed process would, leaving whatever the inner store
   * had written; the call rejects with code TORN and the staged bytes are never cleaned up by this process.
   */
  tearStageAfterBytes?: number;
  /** The next commits fail: "before" nothing is placed, "after" the bytes are placed but an error is reported. */
  failCommit?: "before" | "after";
  /** Removals fail with EIO (the bytes stay). */
  failRemove?: boolean;
  /** Read streams error with EIO after this many bytes. */
  failReadAfterBytes?: number;
  /** Milliseconds added to each chunk staged, each commit and each removal. */
  delayMs?: number;
}

export interface FaultyStore extends ObjectStore {
  /** The faults in force; change them at any time. */
  faults: Faults;
  /** Counts of calls that reached the inner store. */
  readonly calls: { stage: number; commit: number; remove: number; read: number };
}

export function withFaults(inner: ObjectStore, initial: Faults = {}): FaultyStore {
  const calls = { stage: 0, commit: 0, remove: 0, read: 0 };
  const store: FaultyStore = {
    faults: { ...initial },
    calls,
    async stage(source, options) {
      const { failStageAfterBytes, tearStageAfterBytes, delayMs } = store.faults;
      calls.stage++;
      if (tearStageAfterBytes !== undefined) return tear(inner, source, tearStageAfterBytes, options);
      const faulty = source.pipe(chunkFaults(failStageAfterBytes, delayMs));
      source.on("error", (error) => faulty.destroy(error));
      const staged = await inner.stage(faulty, options);
      return wrapStaged(staged);
    },
    read(key, range) {
      calls.read++;
      const stream = inner.read(key, range);
      const limit = store.faults.failReadAfterBytes;
      if (limit === undefined) return stream;
      const faulty = stream.pipe(chunkFaults(limit, undefined));
      stream.on("error", (error) => faulty.destroy(error));
      return faulty;
    },
    has: (key) => inner.has(key),
    async remove(key) {
      await pause(store.faults.delayMs);
      if (store.faults.failRemove) throw eio("remove");
      calls.remove++;
      await inner.remove(key);
    },
    holdRemovals: () => inner.holdRemovals(),
    sweepTemp: () => inner.sweepTemp(),
    keys: () => inner.keys(),
    close: () => inner.close(),
  };
  if (inner.readSmall) store.readSmall = (key, size) => inner.readSmall?.(key, size) ?? Buffer.alloc(0);

  function wrapStaged(staged: StagedObject): StagedObject {
    return {
      digests: staged.digests,
      key: staged.key,
      async commit() {
        await pause(store.faults.delayMs);
        const mode = store.faults.failCommit;
        if (mode === "before") throw eio("commit");
        calls.commit++;
        await staged.commit();
        if (mode === "after") throw eio("commit (after placing the bytes)");
      },
      read: () => staged.read(),
      addDigest: (algorithm) => staged.addDigest(algorithm),
      discard: () => staged.discard(),
    };
  }
  return store;
}

/** Passes bytes through, slowed by `delayMs` per chunk, failing with EIO after `failAfter` bytes. */
function chunkFaults(failAfter: number | undefined, delayMs: number | undefined): Transform {
  let seen = 0;
  return new Transform({
    async transform(chunk: Buffer, _encoding, done) {
      await pause(delayMs);
      if (failAfter !== undefined && seen + chunk.length > failAfter) {
        const keep = Math.max(failAfter - seen, 0);
        seen = failAfter;
        if (keep > 0) this.push(chunk.subarray(0, keep));
        done(eio("write"));
        return;
      }
      seen += chunk.length;
      done(null, chunk);
    },
  });
}

/**
 * Feed the inner store `limit` bytes, then stall its upload for ever, as a process killed mid-write would leave
 * it: the inner stage never settles, its temporary bytes stay where it put them.
 */
async function tear(
  inner: ObjectStore,
  source: Readable,
  limit: number,
  options: Parameters<ObjectStore["stage"]>[1],
): Promise<StagedObject> {
  let sent = 0;
  let stalled: () => void = () => undefined;
  const reachedLimit = new Promise<void>((resolve) => {
    stalled = resolve;
  });
  const bytes = source[Symbol.asyncIterator]();
  const feed = new Readable({
    async read() {
      if (sent >= limit) {
        stalled();
        return;
      }
      const next = await bytes.next();
      if (next.done) {
        stalled();
        return;
      }
      const chunk = (next.value as Buffer).subarray(0, limit - sent);
      sent += chunk.length;
      this.push(chunk);
    },
  });
  void inner.stage(feed, options).catch(() => undefined);
  await reachedLimit;
  // Let the inner store write what it was given.
  await sleep(200);
  throw Object.assign(new Error(`torn write after ${sent} bytes`), { code: "TORN" });
}

async function pause(ms: number | undefined): Promise<void> {
  if (ms) await sleep(ms);
}

function eio(what: string): Error {
  return Object.assign(new Error(`injected I/O error: ${what}`), { code: "EIO" });
}
