export { DuplicateKeyError, isDatabaseTimeout } from "./errors.ts";
export { type BulkLoadOptions, bulkLoadObjects } from "./objects/bulk-load.ts";
export { type OpenOptions, openDatabase } from "./open.ts";
export type * from "./types.ts";
