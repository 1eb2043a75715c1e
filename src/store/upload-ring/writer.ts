/**
 * Writing a stream of chunks to a file through the hasher ring: chunks are copied into slots of shared memory as
 * they arrive; each full slot is hashed by the hasher threads (for one job) and written at its place in the file
 * at the same time, and released once both are done. Writes happen in file order, so the file only ever grows by
 * whole slots. Slots that start on a slot boundary of the file go to the disk directly (O_DIRECT, direct-io.ts):
 * a writer starting mid-slot (a resumed upload) fills its first slot only up to the next boundary, so that the
 * slots after it are aligned. Nothing is kept in memory beyond a few slots.
 */
import { closeSync, openSync, write } from "node:fs";
import { promisify } from "node:util";
import { DIRECT_ALIGN, DIRECT_FLAGS } from "./direct-io.ts";
import type { HasherPool, HashJob, Slot } from "./hasher-pool.ts";
import { noteTransientBytes } from "./passing-chunks.ts";

const writeAsync = promisify(write);

/** Slots one upload may have in flight at once by default, so that concurrent uploads share the ring. */
export const SLOTS_IN_FLIGHT = 4;

export interface RingWriterOptions {
  pool: HasherPool;
  /** The hashes every byte goes to; the caller finishes or drops it. */
  job: HashJob;
  /** The file, open for writing, and its path (direct writes open it once more). */
  fd: number;
  file: string;
  /** Where in the file the first byte goes. */
  position: number;
  /** Slots this writer may have in flight at once (so that concurrent writers share the ring). */
  maxInFlight: number;
  signal?: AbortSignal;
}

export class RingWriter {
  /** The file position after the bytes handed to the threads and the file so far. */
  position: number;
  /** The file position up to which every write completed. */
  written: number;
  /** The slot being filled and how much of it is. */
  private slot: Slot | undefined;
  private filled = 0;
  /** The wait for a slot, while one is under way. */
  private filling: Promise<void> | undefined;
  private failure: unknown;
  private abandoned = false;
  private readonly inFlight = new Set<Promise<void>>();
  private writes: Promise<void> = Promise.resolve();
  /** The file opened for direct writes, once an aligned slot was written. */
  private directFd: number | undefined;

  constructor(private readonly options: RingWriterOptions) {
    this.position = options.position;
    this.written = options.position;
  }

  /** Take `chunk`: copied into slots at once where one is free; otherwise a promise of the rest. */
  add(chunk: Buffer): Promise<void> | undefined {
    if (this.failure !== undefined) throw this.failure;
    if (chunk.length === 0) return undefined;
    return this.fill(chunk, 0);
  }

  /** Take `chunks` in order, as `add` does each. */
  addAll(chunks: Buffer[]): Promise<void> | undefined {
    for (const [at, chunk] of chunks.entries()) {
      const wait = this.add(chunk);
      if (wait) return this.track(wait.then(() => this.addAll(chunks.slice(at + 1))));
    }
    return undefined;
  }

  /**
   * Hash and write what is left (a partial slot too); resolves once every slot is hashed and written. On the
   * first failure it rejects, after every slot came back (`written` then tells how far the file is whole).
   */
  async end(): Promise<void> {
    try {
      await this.filling;
      if (this.slot) this.dispatch(this.slot, this.filled);
      this.slot = undefined;
      await Promise.all(this.inFlight);
      await this.writes;
    } catch (error) {
      await this.abandon();
      throw error;
    }
    this.closeDirect();
  }

  /** After a failure: let slots in flight come back (the threads may still read them), take nothing more. */
  async abandon(): Promise<void> {
    this.abandoned = true;
    await this.filling?.catch(() => undefined);
    if (this.slot) this.options.pool.release(this.slot);
    this.slot = undefined;
    await Promise.allSettled(this.inFlight);
    await this.writes.catch(() => undefined);
    this.closeDirect();
  }

  /** Copy `chunk` from `offset` into slots; a promise when a slot must be waited for. */
  private fill(chunk: Buffer, offset: number): Promise<void> | undefined {
    if (this.abandoned) throw new Error("ring writer: abandoned");
    while (offset < chunk.length) {
      if (!this.slot) {
        const free = this.inFlight.size < this.options.maxInFlight;
        const slot = free ? this.options.pool.tryAcquire() : undefined;
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
    while (this.inFlight.size >= this.options.maxInFlight) await Promise.race(this.inFlight);
    const slot = await this.options.pool.acquire(this.options.signal);
    if (this.abandoned) {
      this.options.pool.release(slot);
      throw new Error("ring writer: abandoned");
    }
    this.slot = slot;
  }

  /** Copy what fits of `chunk` into `slot`; a slot filled up to the next slot boundary of the file is sent. */
  private copy(slot: Slot, chunk: Buffer, offset: number): number {
    const slotSize = this.options.pool.slotSize;
    const room = slotSize - (this.position % slotSize) - this.filled;
    const n = Math.min(chunk.length - offset, room);
    chunk.copy(slot.bytes, this.filled, offset, offset + n);
    this.filled += n;
    if (n === room) {
      this.dispatch(slot, this.filled);
      this.slot = undefined;
    }
    return offset + n;
  }

  /** Hash and write the first `length` bytes of `slot` concurrently; the slot is released once both are done. */
  private dispatch(slot: Slot, length: number): void {
    const { pool, job } = this.options;
    this.filled = 0;
    noteTransientBytes(length);
    const hashed = job.update(slot, length);
    const at = this.position;
    this.position += length;
    const written = this.writes.then(async () => {
      await this.write(slot.bytes, length, at, pool.direct);
      this.written = at + length;
    });
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
   * Aligned slots go to the disk directly (an fsync before the file is used still makes them and the file's size
   * durable); others through the page cache, and the rest of a short direct write likewise.
   */
  private async write(bytes: Uint8Array, length: number, at: number, direct: boolean): Promise<void> {
    const flags = DIRECT_FLAGS;
    const aligned = direct && flags !== undefined && length % DIRECT_ALIGN === 0 && at % DIRECT_ALIGN === 0;
    if (aligned) this.directFd ??= openSync(this.options.file, flags);
    let done = 0;
    while (done < length) {
      const fd = done === 0 && aligned && this.directFd !== undefined ? this.directFd : this.options.fd;
      done += (await writeAsync(fd, bytes, done, length - done, at + done)).bytesWritten;
    }
  }

  private closeDirect(): void {
    if (this.directFd === undefined) return;
    try {
      closeSync(this.directFd);
    } catch {
      // already closed
    }
    this.directFd = undefined;
  }
}
