/**
 * Staging: stream an upload into a temp file while hashing it in the same pass (the hashes `ingestHashes` names).
 * Incoming chunks are copied into slots of the hasher ring (1 MiB) as they arrive; each full slot is hashed by
 * the hasher threads and written to the file at the same time. Uploads that end before reaching `smallLimit` are hashed on this thread instead (a
 * round trip to the threads costs more than the hashing). Nothing is kept in memory beyond a few slots.
 */
import { createHash, randomUUID } from "node:crypto";
import { closeSync, fsync, open, openSync, write, writeSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { promisify } from "node:util";
import { declaredHash, digestsOf, type HashKey, ingestHashes } from "./algorithms.ts";
import { pumpChunks } from "./chunk-pump.ts";
import { DIRECT_ALIGN, DIRECT_FLAGS } from "./direct-io.ts";
import type { HasherPool, HashJob, HexDigests, Slot } from "./hasher-pool.ts";
import type { Digests, StageOptions } from "./types.ts";
import { noteTransientBytes } from "./young-collection.ts";

export interface StageSettings {
  tmpDir: string;
  /** The shared hasher pool (made on first use). */
  pool(): HasherPool;
  /** Uploads shorter than this are hashed on the calling thread. */
  smallLimit: number;
  /** Slots one upload may have in flight at once (so that concurrent uploads share the ring). */
  maxInFlight: number;
  /** Names of temp files being written or staged, not yet committed or discarded (sweepTemp leaves them alone). */
  active: Set<string>;
}

export interface StagedFile {
  /** The temp file; its name stays in `active` until the caller commits or discards it. */
  path: string;
  digests: Digests;
}

export async function stageFile(
  settings: StageSettings,
  source: Readable,
  options: StageOptions = {},
): Promise<StagedFile> {
  const declared = declaredHash(options.algorithm);
  const hashes = ingestHashes(declared);
  const { signal } = options;
  signal?.throwIfAborted();

  const name = randomUUID();
  const file = path.join(settings.tmpDir, name);
  settings.active.add(name);
  const onAbort = () => source.destroy(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  let fd: number | undefined;
  const upload = new Upload(settings, hashes, signal, file);
  try {
    // Asynchronous: creating a file may wait for the filesystem journal, which concurrent fsyncs keep busy.
    fd = await openAsync(file, "wx");
    upload.fd = fd;
    await pumpChunks(source, (chunk) => upload.add(chunk));
    const values = await upload.end();
    signal?.throwIfAborted();
    await fsyncAsync(fd);
    closeSync(fd);
    fd = undefined;
    return { path: file, digests: digestsOf(upload.position, values, declared) };
  } catch (error) {
    if (!source.destroyed) source.destroy();
    await upload.abandon();
    if (fd !== undefined) closeQuietly(fd);
    await rm(file, { force: true });
    settings.active.delete(name);
    throw error;
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}

const openAsync = promisify(open);
const fsyncAsync = promisify(fsync);
const writeAsync = promisify(write);

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed or never usable
  }
}

/** The state of one upload: bytes not yet in a slot, the slot being filled, slots in flight, the file position. */
class Upload {
  fd: number | undefined;
  position = 0;
  /** An upload's first bytes, until they reach smallLimit (then it goes through the ring). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private pool: HasherPool | undefined;
  /** The slot being filled and how much of it is. */
  private slot: Slot | undefined;
  private filled = 0;
  /** The wait for a slot, while one is under way. */
  private filling: Promise<void> | undefined;
  private failure: unknown;
  private abandoned = false;
  private job: HashJob | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private writes: Promise<void> = Promise.resolve();
  /** The temp file opened for direct writes, once a full slot was written (see direct-io.ts). */
  private directFd: number | undefined;

  constructor(
    private readonly settings: StageSettings,
    private readonly hashes: readonly HashKey[],
    private readonly signal: AbortSignal | undefined,
    private readonly file: string,
  ) {}

  /** Take `chunk`: copied into ring slots at once where one is free; otherwise a promise of the rest. */
  add(chunk: Buffer): Promise<void> | undefined {
    if (this.failure !== undefined) throw this.failure;
    if (chunk.length === 0) return undefined;
    if (this.pool) return this.fill(chunk, 0);
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes < this.settings.smallLimit) return undefined;
    this.pool = this.settings.pool();
    return this.fillAll(this.pending.splice(0));
  }

  /** Flush what is left; the digests once every slot is hashed and written. */
  async end(): Promise<HexDigests> {
    await this.filling;
    if (!this.pool) return this.endOnThisThread();
    if (this.slot) this.dispatch(this.slot, this.filled);
    this.slot = undefined;
    await Promise.all(this.inFlight);
    await this.writes;
    this.closeDirect();
    return (this.job ?? this.pool.open(this.hashes)).finish();
  }

  /** After a failure: let slots in flight come back (the threads may still read them), forget the job. */
  async abandon(): Promise<void> {
    this.abandoned = true;
    await this.filling?.catch(() => undefined);
    if (this.slot) this.pool?.release(this.slot);
    this.slot = undefined;
    await Promise.allSettled(this.inFlight);
    await this.writes.catch(() => undefined);
    this.closeDirect();
    this.job?.drop();
    this.pending = [];
  }

  private endOnThisThread(): HexDigests {
    const bytes = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    const values: HexDigests = {};
    for (const hash of this.hashes) values[hash] = createHash(hash).update(bytes).digest("hex");
    // At most smallLimit bytes into the page cache: written in place, not by a round trip to the thread pool.
    const fd = this.requireFd();
    for (let done = 0; done < bytes.length; ) {
      done += writeSync(fd, bytes, done, bytes.length - done, this.position + done);
    }
    this.position += bytes.length;
    return values;
  }

  private fillAll(chunks: Buffer[]): Promise<void> | undefined {
    for (const [at, chunk] of chunks.entries()) {
      const wait = this.fill(chunk, 0);
      if (wait) return this.track(wait.then(() => this.fillAll(chunks.slice(at + 1))));
    }
    return undefined;
  }

  /** Copy `chunk` from `offset` into slots; a promise when a slot must be waited for. */
  private fill(chunk: Buffer, offset: number): Promise<void> | undefined {
    if (this.abandoned) throw new Error("stage: the upload was abandoned");
    while (offset < chunk.length) {
      if (!this.slot) {
        const slot = this.inFlight.size < this.settings.maxInFlight ? this.pool?.tryAcquire() : undefined;
        if (!slot) return this.track(this.acquire().then(() => this.fill(chunk, offset)));
        this.slot = slot;
      }
      offset = this.copy(this.slot, chunk, offset);
    }
    return undefined;
  }

  private track(wait: Promise<void>): Promise<void> {
    this.filling = wait;
    return wait;
  }

  /** Wait for room in flight and a free slot. */
  private async acquire(): Promise<void> {
    while (this.inFlight.size >= this.settings.maxInFlight) await Promise.race(this.inFlight);
    const slot = await this.requirePool().acquire(this.signal);
    if (this.abandoned) {
      this.requirePool().release(slot);
      throw new Error("stage: the upload was abandoned");
    }
    this.slot = slot;
  }

  /** Copy what fits of `chunk` into `slot`; a full slot goes to the threads and the file. */
  private copy(slot: Slot, chunk: Buffer, offset: number): number {
    const slotSize = this.requirePool().slotSize;
    const n = Math.min(chunk.length - offset, slotSize - this.filled);
    chunk.copy(slot.bytes, this.filled, offset, offset + n);
    this.filled += n;
    if (this.filled === slotSize) {
      this.dispatch(slot, slotSize);
      this.slot = undefined;
    }
    return offset + n;
  }

  /** Hash and write the first `length` bytes of `slot` concurrently; the slot is released once both are done. */
  private dispatch(slot: Slot, length: number): void {
    const pool = this.requirePool();
    this.filled = 0;
    noteTransientBytes(length);
    this.job ??= pool.open(this.hashes);
    const hashed = this.job.update(slot, length);
    const at = this.position;
    this.position += length;
    const written = this.writes.then(() => this.write(slot.bytes, length, at, pool.direct));
    this.writes = written;
    const task = Promise.allSettled([hashed, written]).then(([h, w]) => {
      pool.release(slot);
      if (h.status === "rejected") throw h.reason;
      if (w.status === "rejected") throw w.reason;
    });
    this.inFlight.add(task);
    // A failed task stays in the set so that the next race (or the final wait) reports it; the next chunk too.
    task.then(
      () => this.inFlight.delete(task),
      (error: unknown) => {
        this.failure ??= error;
      },
    );
  }

  /**
   * Aligned whole slots go to the disk directly (the fsync before commit still makes them and the file's size
   * durable); the last, partial slot through the page cache, and the rest of a short direct write likewise.
   */
  private async write(bytes: Uint8Array, length: number, at: number, direct: boolean): Promise<void> {
    const flags = DIRECT_FLAGS;
    const aligned = direct && flags !== undefined && length % DIRECT_ALIGN === 0 && at % DIRECT_ALIGN === 0;
    if (aligned) this.directFd ??= openSync(this.file, flags);
    let done = 0;
    while (done < length) {
      const fd = done === 0 && aligned && this.directFd !== undefined ? this.directFd : this.requireFd();
      done += (await writeAsync(fd, bytes, done, length - done, at + done)).bytesWritten;
    }
  }

  private closeDirect(): void {
    if (this.directFd !== undefined) closeQuietly(this.directFd);
    this.directFd = undefined;
  }

  private requirePool(): HasherPool {
    if (!this.pool) throw new Error("stage: no hasher pool");
    return this.pool;
  }

  private requireFd(): number {
    if (this.fd === undefined) throw new Error("stage: no temp file");
    return this.fd;
  }
}
