import type { Readable } from "node:stream";
import type { Digests } from "../types/stored-object.ts";
import type { UploadPlace } from "./upload-place.ts";

/** Digests computed in the single pass over an upload: a plain value defined with the domain types (src/types/). */
export type { Digests };

/** Bytes written to a temporary file inside the store, hashed, not yet visible. */
export interface StagedObject {
  readonly digests: Digests;
  /** Content key: the SHA-256 hex of the bytes. */
  readonly key: string;
  /** The bytes themselves, when the stager kept them in memory (src/objects/held-bytes.ts); else undefined. */
  readonly held?: Buffer;
  /** A read stream of the staged bytes, before commit (a resource map is read to check what it aggregates). */
  read(): Readable;
  /** Move the bytes into their content-addressed place (atomic rename + fsync). Idempotent. */
  commit(): Promise<void>;
  /**
   * Compute one more digest over the staged bytes (a second read of the file). Only for an algorithm the system
   * metadata names that was not known while the bytes arrived: an inline upload whose system metadata part came
   * after the object part and names one beyond MD5/SHA-1/SHA-256, a resumable upload whose `checksumAlgorithm`
   * named another algorithm or none.
   */
  addDigest(algorithm: string): Promise<void>;
  /** Remove the temporary file. Safe to call after commit (then it does nothing). */
  discard(): Promise<void>;
}

export interface StageOptions {
  /** DataONE algorithm name the sysmeta declares (MD5, SHA-1, SHA-256, SHA-384, SHA-512). */
  algorithm?: string;
  /**
   * Bytes the source is expected to hold, when known before them (the system metadata's size). Only a hint: the
   * S3 store sizes its multipart parts by it; the digests still count what came.
   */
  expectedSize?: number;
  signal?: AbortSignal;
}

/** Content-addressed object bytes. Keys are SHA-256 hex strings, never identifiers. */
export interface ObjectStore {
  /** Stream `source` to a temporary place while computing size and digests in one pass. */
  stage(source: Readable, options?: StageOptions): Promise<StagedObject>;
  /**
   * A read stream of committed bytes; `range.end` is inclusive. A missing key is an ENOENT-coded error, thrown at
   * once (filesystem) or as the stream's first event (S3); INVALID_KEY for a key that is not a SHA-256 hex.
   */
  read(key: string, range?: { start: number; end: number }): Readable;
  /**
   * The whole of a small object (`size` at most SMALL_READ_LIMIT bytes), read synchronously or from memory: no
   * stream, no thread-pool round trip. The buffer may be shared: do not modify it. Throws an ENOENT-coded error
   * when absent, SIZE_MISMATCH when the file is shorter than `size`. Absent on stores that cannot read
   * synchronously (S3): callers then use `read`.
   */
  readSmall?(key: string, size: number): Buffer;
  /**
   * Bytes already in a file of the same filesystem, hashed as they arrived (a finished resumable upload): commit
   * renames that file into place, no copy and no second read. Discard leaves the file where it is. Absent on
   * stores elsewhere (S3): callers then `stage` a read of the file.
   */
  adopt?(file: string, digests: Digests): StagedObject;
  /** Where resumable uploads keep their bytes, shared with every process of this store (absent: none shared). */
  readonly uploadPlace?: UploadPlace;
  /** Whether committed bytes exist under this key. */
  has(key: string): Promise<boolean>;
  /** Remove committed bytes (no error when already absent). */
  remove(key: string): Promise<void>;
  /**
   * Until the returned function is called, remove() removes nothing and notes the key instead (a backup copying
   * the bytes of a database snapshot needs them all); that function returns the noted keys, which the caller
   * removes once it checked that no object took them back meanwhile. One hold at a time.
   */
  holdRemovals(): () => string[];
  /**
   * Remove temporaries a crash left (called at start-up, before serving). Returns how many. Uploads this
   * instance has in progress are kept; a store shared by several processes keeps recent ones of theirs too.
   */
  sweepTemp(): Promise<number>;
  /** Every committed key (for audits and orphan collection). */
  keys(): AsyncIterable<string>;
  close(): Promise<void>;
}
