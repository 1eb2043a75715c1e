/**
 * What the upload area asks of the store holding the uploads' bytes, beyond tus's own datastore calls: one per
 * kind of object store (the folder of a filesystem store: digesting-file-store.ts; an S3 bucket:
 * s3-upload-store.ts). Either keeps each upload's record in the database, so any process answers for any upload.
 */
import type { DataStore } from "@tus/utils";
import type { ObjectStore, StagedObject } from "../store/types.ts";

export interface UploadBytes {
  /**
   * Ends the body being written into upload `id` with `error`, as a body that broke: what arrived is kept, then
   * the write fails with `error`. False when no body is being written into it in this process.
   */
  breakBody(id: string, error: Error): boolean;
  /** A hold on `id` was lost while held: forget what this process computed about its bytes. */
  distrust(id: string): void;
  /**
   * The bytes of finished upload `id` staged in `objects` with their digests (SHA-256 and `algorithm`, a DataONE
   * name, when it names one); undefined while some bytes are missing. Called under the upload's hold.
   */
  stageFinished(
    id: string,
    objects: ObjectStore,
    algorithm: string | undefined,
  ): Promise<StagedObject | undefined>;
  /** Forget a used-up upload: its record and whatever is left of its bytes. */
  forget(id: string): Promise<void>;
  close(): Promise<void>;
}

export type ResumableStore = DataStore & UploadBytes;
