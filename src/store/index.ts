/** The content-addressed object store. */
export {
  algorithmKey,
  canonicalAlgorithm,
  DATAONE_NAME,
  digestForAlgorithm,
  type HashKey,
  recordedDigest,
} from "./algorithms.ts";
export { createFsStore, type FsStoreOptions, READ_CHUNK } from "./fs-store.ts";
export { openStore } from "./open-store.ts";
export { SMALL_READ_LIMIT } from "./small-reads.ts";
export type { Digests, ObjectStore, StagedObject, StageOptions } from "./types.ts";
export {
  createHasherPool,
  type HasherPool,
  type HasherPoolOptions,
  type HashJob,
  type Slot,
} from "./upload-ring/hasher-pool.ts";
