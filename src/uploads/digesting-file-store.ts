/**
 * The tus file store with the upload's digests computed as its bytes arrive: each PATCH body goes through the
 * hasher ring as an inline upload does (store/ring-writer.ts: 1 MiB slots hashed by the hasher threads while they
 * are written, aligned ones with O_DIRECT), into the running digests the previous PATCHes left
 * (running-digests.ts). The file grows by whole slots written in order, and a body that ends or breaks part-way
 * has what arrived written and hashed; a write or hash that fails cuts the file back to the last whole write and
 * drops the running state (rebuilt from the file next time), so the offset tus reports (the file's size) and the
 * digests always cover the same bytes. Each upload's record (owner, size, metadata) is in the database
 * (`recordedConfigstore`) and its file in the store's shared folder, so any process serves it: digests another
 * process left behind are rebuilt from the file, those bytes read once more (docs/decisions.md, "Uploads across
 * machines").
 */
import { close, createReadStream, ftruncate, open } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { promisify } from "node:util";
import { FileStore } from "@tus/file-store";
import type { Upload } from "@tus/utils";
import type { UploadRecords } from "../db/upload-records.ts";
import { algorithmKey } from "../store/algorithms.ts";
import type { ObjectStore, StagedObject } from "../store/types.ts";
import { pumpChunks } from "../store/upload-ring/chunk-pump.ts";
import { directOffset } from "../store/upload-ring/direct-io.ts";
import { createHasherPool, type HasherPool } from "../store/upload-ring/hasher-pool.ts";
import type { Digests } from "../types/stored-object.ts";
import type { UploadBytes } from "./resumable-store.ts";
import { RunningDigests } from "./running-digests.ts";
import { checkedUploadId } from "./upload-id.ts";
import { recordedConfigstore } from "./upload-record.ts";

/**
 * Upload metadata key naming the checksum algorithm of the object's system metadata (a DataONE name: MD5, SHA-1,
 * SHA-256, SHA-384, SHA-512), computed besides SHA-256 as the bytes arrive.
 */
export const ALGORITHM_METADATA = "checksumAlgorithm";

const openAsync = promisify(open);
const closeAsync = promisify(close);
const ftruncateAsync = promisify(ftruncate);

export class DigestingFileStore extends FileStore implements UploadBytes {
  private readonly running = new Map<string, RunningDigests>();
  /** Ends the body being written into an upload (by id) with an error. */
  private readonly bodies = new Map<string, (error: Error) => void>();
  private hashers: HasherPool | undefined;

  constructor(
    folder: string,
    expiryMs: number,
    private readonly records: UploadRecords,
  ) {
    super({
      directory: folder,
      expirationPeriodInMilliseconds: expiryMs,
      configstore: recordedConfigstore(records),
    });
  }

  /** The file holding the upload's bytes (`id` of the node's shape: never a path). */
  fileOf(id: string): string {
    return path.join(this.directory, checkedUploadId(id));
  }

  // The library's own file names are `${directory}/${id}`: every way in checks the id's shape first.
  override create(upload: Upload): Promise<Upload> {
    checkedUploadId(upload.id);
    return super.create(upload);
  }

  override getUpload(id: string): Promise<Upload> {
    return super.getUpload(checkedUploadId(id));
  }

  override read(id: string): ReturnType<FileStore["read"]> {
    return super.read(checkedUploadId(id));
  }

  override declareUploadLength(id: string, length: number): Promise<void> {
    return super.declareUploadLength(checkedUploadId(id), length);
  }

  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    checkedUploadId(id);
    const digests = await this.digestsAt(id, offset);
    if (digests.finished) return refuseBytes(readable, offset);
    const file = this.fileOf(id);
    const fd = await openAsync(file, "r+");
    this.bodies.set(id, (error) => readable.destroy(error));
    try {
      const writer = digests.writer(fd, file);
      // A body that breaks part-way still has what arrived written and hashed before the error goes to tus.
      const broken = await pumpChunks(readable, (chunk) => writer.add(chunk)).then(
        () => undefined,
        (error: unknown) => error ?? new Error("The request body failed."),
      );
      try {
        await writer.end();
      } catch (error) {
        // The threads may have hashed bytes the file did not take: the digests are rebuilt from the file.
        this.drop(id);
        await ftruncateAsync(fd, writer.written).catch(() => undefined);
        throw error;
      }
      digests.offset = writer.position;
      await this.records.update(id, { received: digests.offset });
      if (broken !== undefined) throw broken;
      return digests.offset;
    } finally {
      this.bodies.delete(id);
      await closeAsync(fd);
    }
  }

  /**
   * Ends the body being written into upload `id` with `error`, as a body that broke: what arrived is written and
   * hashed, then the write fails with `error`. False when no body is being written into it.
   */
  breakBody(id: string, error: Error): boolean {
    const end = this.bodies.get(id);
    end?.(error);
    return end !== undefined;
  }

  async stageFinished(
    id: string,
    objects: ObjectStore,
    algorithm: string | undefined,
  ): Promise<StagedObject | undefined> {
    const digests = await this.finishedDigests(id);
    if (!digests) return undefined;
    const file = this.fileOf(id);
    // On the same filesystem the file is renamed into place; elsewhere it is streamed in once.
    if (objects.adopt) return objects.adopt(file, digests);
    return objects.stage(createReadStream(file), {
      ...(algorithm ? { algorithm } : {}),
      expectedSize: digests.size,
    });
  }

  /** The digests of the whole upload once all its bytes arrived; undefined while some are missing. */
  async finishedDigests(id: string): Promise<Digests | undefined> {
    const upload = await this.getUpload(id);
    if (upload.size === undefined || upload.offset !== upload.size) return undefined;
    try {
      return await (await this.digestsAt(id, upload.offset)).digests();
    } catch (error) {
      this.drop(id);
      throw error;
    }
  }

  /** Forget an upload whose bytes are now in the object store (its file renamed away, or copied and removed here). */
  async forget(id: string): Promise<void> {
    this.drop(id);
    await this.records.remove(id);
    await rm(this.fileOf(id), { force: true });
  }

  /**
   * Remove uploads older than the expiry, counted from their creation, whatever their size: the library's own
   * keeps those whose recorded offset equals their size, which an upload of no bytes always has.
   */
  override async deleteExpired(): Promise<number> {
    const expiry = this.getExpiration();
    if (expiry <= 0) return 0;
    const expired = await this.records.createdBefore(Date.now() - expiry);
    for (const id of expired) await this.remove(id).catch(() => undefined);
    return expired.length;
  }

  /** Forget the running digests of `id` (its file may hold bytes they do not cover): rebuilt from the file. */
  distrust(id: string): void {
    this.drop(id);
  }

  /** The upload's file and record go (tus's termination, expiry); a file already gone is no error. */
  override async remove(id: string): Promise<void> {
    this.drop(id);
    await rm(this.fileOf(id), { force: true });
    await this.records.remove(id);
  }

  /** Stop the hasher threads. */
  async close(): Promise<void> {
    for (const id of [...this.running.keys()]) this.drop(id);
    await this.hashers?.close();
    this.hashers = undefined;
  }

  /** The running digests over the first `offset` bytes: those in memory, else (after a restart) from the file. */
  private async digestsAt(id: string, offset: number): Promise<RunningDigests> {
    const known = this.running.get(id);
    if (known?.offset === offset) return known;
    this.drop(id);
    const info = await this.configstore.get(id);
    const algorithm = info?.metadata?.[ALGORITHM_METADATA];
    const declared = algorithm ? algorithmKey(algorithm) : undefined;
    const rebuilt = await RunningDigests.ofFile(this.pool(), this.fileOf(id), offset, declared);
    this.running.set(id, rebuilt);
    return rebuilt;
  }

  private drop(id: string): void {
    this.running.get(id)?.drop();
    this.running.delete(id);
  }

  /** The hasher threads of uploads (made on first use; anew after one failed). */
  private pool(): HasherPool {
    if (!this.hashers || this.hashers.broken) {
      // An upload's job lasts from its first byte to its create: open jobs must not keep the process alive.
      const folder = this.directory;
      this.hashers = createHasherPool({
        holdProcess: false,
        slotOffset: (buffer) => directOffset(folder, buffer),
      });
    }
    return this.hashers;
  }
}

/** A finished upload takes no byte more (tus limits a PATCH to the declared length): `offset` if none came. */
async function refuseBytes(readable: Readable, offset: number): Promise<number> {
  await pumpChunks(readable, (chunk) => {
    if (chunk.length > 0) throw new Error("The upload is finished: it takes no more bytes.");
    return undefined;
  });
  return offset;
}
