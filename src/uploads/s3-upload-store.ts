/**
 * The tus datastore of a node whose objects are in S3: each upload's record (owner, size, bytes received,
 * metadata, where its bytes stand) is in the database and its bytes are an S3 multipart upload in the store's
 * bucket (s3-upload-parts.ts), so any process continues any upload. Its digests are computed once, when it is
 * used: the assembled bytes are read back and staged into the store as an inline upload is (docs/decisions.md,
 * "Uploads across machines").
 */
import type { Readable } from "node:stream";
import { DataStore, ERRORS, type Upload } from "@tus/utils";
import type { UploadRecord, UploadRecords } from "../db/upload-records.ts";
import type { ObjectStore, StagedObject } from "../store/types.ts";
import type { S3UploadPlace } from "../store/upload-place.ts";
import type { UploadBytes } from "./resumable-store.ts";
import {
  appendBody,
  completeMultipart,
  readAssembled,
  receivedOf,
  removeBytes,
  type S3UploadState,
  startMultipart,
} from "./s3-upload-parts.ts";
import { checkedUploadId } from "./upload-id.ts";
import { recordOf, uploadOf } from "./upload-record.ts";

export class S3UploadStore extends DataStore implements UploadBytes {
  /** Ends the body being written into an upload (by id) with an error. */
  private readonly bodies = new Map<string, (error: Error) => void>();

  constructor(
    private readonly place: S3UploadPlace,
    private readonly records: UploadRecords,
    private readonly expiryMs: number,
  ) {
    super();
    this.extensions = [
      "creation",
      "creation-with-upload",
      "creation-defer-length",
      "termination",
      "expiration",
    ];
  }

  override async create(upload: Upload): Promise<Upload> {
    const state = await startMultipart(this.place, checkedUploadId(upload.id), upload.size);
    try {
      await this.records.insert(recordOf(upload, { s3: state }));
    } catch (error) {
      await removeBytes(this.place, state).catch(() => undefined);
      throw error;
    }
    upload.storage = { type: "s3", path: state.key, bucket: this.place.bucket };
    return upload;
  }

  override async getUpload(id: string): Promise<Upload> {
    return uploadOf(await this.recordOf(id));
  }

  override async write(readable: Readable, id: string, offset: number): Promise<number> {
    const record = await this.recordOf(id);
    const state = stateOf(record);
    if (state.completed || offset !== record.received) throw ERRORS.INVALID_OFFSET;
    this.bodies.set(id, (error) => readable.destroy(error));
    try {
      const save = (next: S3UploadState) =>
        this.records.update(id, { received: receivedOf(next), state: { ...record.state, s3: next } });
      const { state: after, failure } = await appendBody(this.place, state, readable, save);
      if (failure !== undefined) throw failure;
      return receivedOf(after);
    } finally {
      this.bodies.delete(id);
    }
  }

  override async declareUploadLength(id: string, length: number): Promise<void> {
    await this.recordOf(id);
    await this.records.update(id, { size: length });
  }

  override async remove(id: string): Promise<void> {
    const record = await this.recordOf(id);
    await removeBytes(this.place, stateOf(record));
    await this.records.remove(id);
  }

  /** Removes uploads older than the expiry, counted from their creation, whatever they received. */
  override async deleteExpired(): Promise<number> {
    if (this.expiryMs <= 0) return 0;
    const expired = await this.records.createdBefore(Date.now() - this.expiryMs);
    for (const id of expired) await this.remove(id).catch(() => undefined);
    return expired.length;
  }

  override getExpiration(): number {
    return this.expiryMs;
  }

  breakBody(id: string, error: Error): boolean {
    const end = this.bodies.get(id);
    end?.(error);
    return end !== undefined;
  }

  /** Nothing is computed while the bytes arrive: nothing to forget. */
  distrust(): void {}

  async stageFinished(
    id: string,
    objects: ObjectStore,
    algorithm: string | undefined,
  ): Promise<StagedObject | undefined> {
    const record = await this.recordOf(id);
    if (record.size === undefined || record.received !== record.size) return undefined;
    const state = await completeMultipart(this.place, stateOf(record));
    await this.records.update(id, { state: { ...record.state, s3: state } });
    return objects.stage(readAssembled(this.place, state), {
      ...(algorithm ? { algorithm } : {}),
      expectedSize: record.size,
    });
  }

  async forget(id: string): Promise<void> {
    await this.remove(id).catch((error: unknown) => {
      if (error !== ERRORS.FILE_NOT_FOUND) throw error;
    });
  }

  async close(): Promise<void> {}

  private async recordOf(id: string): Promise<UploadRecord> {
    const record = await this.records.get(checkedUploadId(id));
    if (!record) throw ERRORS.FILE_NOT_FOUND;
    return record;
  }
}

function stateOf(record: UploadRecord): S3UploadState {
  return record.state.s3 as S3UploadState;
}
