/**
 * The tus file store with the upload's digests computed as its bytes arrive: each PATCH body is written to the
 * upload's file and hashed chunk by chunk, into the running digests the previous PATCHes left (running-digests.ts).
 * Each chunk is hashed while it is written; a body that fails part-way leaves whole chunks only, and a write that
 * fails cuts the file back and drops the running state (rebuilt from the file next time), so the offset tus reports
 * (the file's size) and the digests always cover the same bytes.
 */
import { type FileHandle, open, rm } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { FileStore } from "@tus/file-store";
import { algorithmKey } from "../store/algorithms.ts";
import type { Digests } from "../types/stored-object.ts";
import { RunningDigests } from "./running-digests.ts";

/**
 * Upload metadata key naming the checksum algorithm of the object's system metadata (a DataONE name: MD5, SHA-1,
 * SHA-256, SHA-384, SHA-512), computed besides SHA-256 as the bytes arrive.
 */
export const ALGORITHM_METADATA = "checksumAlgorithm";

export class DigestingFileStore extends FileStore {
  private readonly running = new Map<string, RunningDigests>();

  constructor(folder: string, expiryMs: number) {
    super({ directory: folder, expirationPeriodInMilliseconds: expiryMs });
  }

  /** The file holding the upload's bytes. */
  fileOf(id: string): string {
    return path.join(this.directory, id);
  }

  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    const digests = await this.digestsAt(id, offset);
    const handle = await open(this.fileOf(id), "r+");
    try {
      for await (const chunk of readable) {
        const bytes = chunk as Buffer;
        const at = digests.offset;
        // The chunk is hashed here while the thread pool writes it.
        const written = writeAll(handle, bytes, at);
        digests.update(bytes);
        try {
          await written;
        } catch (error) {
          // The digests took bytes the file did not: rebuilt from the file by the next write.
          this.running.delete(id);
          await handle.truncate(at).catch(() => undefined);
          throw error;
        }
      }
    } catch (error) {
      await handle.truncate(digests.offset).catch(() => undefined);
      throw error;
    } finally {
      await handle.close();
    }
    return digests.offset;
  }

  /** The digests of the whole upload once all its bytes arrived; undefined while some are missing. */
  async finishedDigests(id: string): Promise<Digests | undefined> {
    const upload = await this.getUpload(id);
    if (upload.size === undefined || upload.offset !== upload.size) return undefined;
    return (await this.digestsAt(id, upload.offset)).current();
  }

  /** Forget an upload whose bytes are now in the object store (its file renamed away, or copied and removed here). */
  async forget(id: string): Promise<void> {
    this.running.delete(id);
    await this.configstore.delete(id);
    await rm(this.fileOf(id), { force: true });
  }

  override async remove(id: string): Promise<void> {
    this.running.delete(id);
    await super.remove(id);
  }

  /** The running digests over the first `offset` bytes: those in memory, else (after a restart) from the file. */
  private async digestsAt(id: string, offset: number): Promise<RunningDigests> {
    const known = this.running.get(id);
    if (known?.offset === offset) return known;
    const info = await this.configstore.get(id);
    const algorithm = info?.metadata?.[ALGORITHM_METADATA];
    const declared = algorithm ? algorithmKey(algorithm) : undefined;
    const rebuilt = await RunningDigests.ofFile(this.fileOf(id), offset, declared);
    this.running.set(id, rebuilt);
    return rebuilt;
  }
}

async function writeAll(handle: FileHandle, bytes: Buffer, at: number): Promise<void> {
  for (let done = 0; done < bytes.length; ) {
    done += (await handle.write(bytes, done, bytes.length - done, at + done)).bytesWritten;
  }
}
