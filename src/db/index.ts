export { type BulkLoadOptions, bulkLoadObjects } from "./bulk-load.ts";
export { DuplicateKeyError, isDatabaseTimeout } from "./errors.ts";
export { type OpenOptions, openDatabase } from "./open.ts";
export type * from "./types.ts";
