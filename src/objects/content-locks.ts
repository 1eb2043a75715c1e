/**
 * The content-key lock every commit and removal of bytes takes: first in this process (keyed-mutex.ts, so that
 * work on one key waits here without holding a database connection), then across the processes sharing the
 * database (`db.contentKeys`: a PostgreSQL advisory lock; nothing more on SQLite).
 */
import type { Database } from "../db/types.ts";
import { createKeyedMutex, type KeyedMutex } from "./keyed-mutex.ts";

export function createContentLocks(db: Pick<Database, "contentKeys">): KeyedMutex {
  const local = createKeyedMutex();
  return { run: (key, work) => local.run(key, () => db.contentKeys.hold(key, work)) };
}
