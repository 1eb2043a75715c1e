export { DuplicateKeyError, isDatabaseTimeout } from "./errors.ts";
export { inNumberOrder, MIGRATIONS } from "./migrations/index.ts";
export type { Migration } from "./migrations/migration.ts";
export { type BulkLoadOptions, bulkLoadObjects } from "./objects/bulk-load.ts";
export { type OpenOptions, openDatabase } from "./open.ts";
export type * from "./types.ts";
