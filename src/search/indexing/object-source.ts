/**
 * What indexing sees of the node: each object's record and its bytes, and the database the index's own tables
 * live on. Nothing else: the node's `Database` and `ObjectStore` satisfy these as they are (the composition root
 * hands them over), and indexing cannot reach the node's other tables, queues or writes through them.
 */
import type { SqliteSharing } from "../../db/engine/sqlite-sharing.ts";
import type { ObjectVersion, StoredObject } from "../../types/stored-object.ts";
import type { SearchDb } from "../store/index-store.ts";

/**
 * The objects as stored (system metadata, access, content key), by PID; absent once removed. Bulk indexing walks
 * them by PID through the last three (keyset pages, in the database's PID order).
 */
export interface ObjectRecords {
  get(pid: string): Promise<StoredObject | undefined>;
  getMany(pids: readonly string[]): Promise<Map<string, StoredObject>>;
  /** Up to `limit` PIDs after `after` (undefined: from the first), in PID order. */
  pidsAfter(which: "all", after: string | undefined, limit: number): Promise<string[]>;
  /** How many objects have a PID after `after` (undefined: all of them). */
  countAfter(after: string | undefined): Promise<number>;
  /** The current version of each of these objects that exists, by PID (a removed one is absent). */
  versionsOf(pids: readonly string[]): Promise<Map<string, ObjectVersion>>;
}

/**
 * The database as indexing uses it: the objects' records, the connection, dialect and change log of the index's
 * tables (src/search/store), and what a rebuild's threads open connections of their own with.
 */
export interface IndexedDatabase extends SearchDb {
  readonly objects: ObjectRecords;
  /** SQLite: the file shared with a rebuild's writing thread. */
  readonly sqliteSharing?: Pick<SqliteSharing, "share">;
  /** PostgreSQL: where a rebuild's threads connect. */
  readonly postgresUrl?: string;
}

/** An object's bytes, by its content key. */
export interface ObjectBytes {
  read(contentKey: string): AsyncIterable<Uint8Array>;
}
