/**
 * Staging: stream an upload into a temp file while hashing it in the same pass (the hashes `ingestHashes` names).
 * Incoming chunks are copied into slots of the hasher ring (1 MiB) as they arrive; each full slot is hashed by
 * the hasher threads and written to the file at the same time (ring-writer.ts). Uploads that end before reaching
 * `smallLimit` are hashed on this thread instead (a round trip to the threads costs more than the hashing).
 * Nothing is kept in memory beyond a few slots.
 */
import { createHash, randomUUID } from "node:crypto";
import { closeSync, fsync, open, writeSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { promisify } from "node:util";
import { declaredHash, digestsOf, type HashKey, ingestHashes } from "./algorithms.ts";
import type { Digests, StageOptions } from "./types.ts";
import { pumpChunks } from "./upload-ring/chunk-pump.ts";
import type { HasherPool, HashJob, HexDigests } from "./upload-ring/hasher-pool.ts";
import { RingWriter } from "./upload-ring/writer.ts";

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

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed or never usable
  }
}

/** The state of one upload: its first bytes (hashed here if that is all), then the writer through the ring. */
class Upload {
  fd: number | undefined;
  /** An upload's first bytes, until they reach smallLimit (then it goes through the ring). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private small = 0;
  private job: HashJob | undefined;
  private writer: RingWriter | undefined;

  constructor(
    private readonly settings: StageSettings,
    private readonly hashes: readonly HashKey[],
    private readonly signal: AbortSignal | undefined,
    private readonly file: string,
  ) {}

  /** Bytes taken so far (once the upload ended: its size). */
  get position(): number {
    return this.writer ? this.writer.position : this.small;
  }

  /** Take `chunk`: copied into ring slots at once where one is free; otherwise a promise of the rest. */
  add(chunk: Buffer): Promise<void> | undefined {
    if (this.writer) return this.writer.add(chunk);
    if (chunk.length === 0) return undefined;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes < this.settings.smallLimit) return undefined;
    const pool = this.settings.pool();
    this.job = pool.open(this.hashes);
    this.writer = new RingWriter({
      pool,
      job: this.job,
      fd: this.requireFd(),
      file: this.file,
      position: 0,
      maxInFlight: this.settings.maxInFlight,
      ...(this.signal ? { signal: this.signal } : {}),
    });
    return this.writer.addAll(this.pending.splice(0));
  }

  /** Flush what is left; the digests once every slot is hashed and written. */
  async end(): Promise<HexDigests> {
    if (!this.writer || !this.job) return this.endOnThisThread();
    await this.writer.end();
    return this.job.finish();
  }

  /** After a failure: let slots in flight come back (the threads may still read them), forget the job. */
  async abandon(): Promise<void> {
    await this.writer?.abandon();
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
      done += writeSync(fd, bytes, done, bytes.length - done, done);
    }
    this.small = bytes.length;
    return values;
  }

  private requireFd(): number {
    if (this.fd === undefined) throw new Error("stage: no temp file");
    return this.fd;
  }
}
