/**
 * Content keys locked across processes. Several processes on one PostgreSQL database (serving nodes behind a
 * balancer, `d1node worker`, `d1node import`) share one store: a removal of bytes that the last object let go of
 * must never run between another process's commit of the same bytes and the insert of the row that references
 * them. Each holder keeps a transaction open with `pg_advisory_xact_lock` on the key while its work runs on other
 * connections; the lock ends with that transaction, so a process that dies lets go of it at once.
 * SQLite belongs to one process, whose in-process mutex (src/objects/keyed-mutex.ts) is enough.
 */
import { type Kysely, sql } from "kysely";
import type { Tables } from "../schema.ts";

export interface ContentKeyLocks {
  /** Run `work` while no other process holds `key` (PostgreSQL); at once on SQLite. */
  hold<T>(key: string, work: () => Promise<T>): Promise<T>;
}

/**
 * Holders at once per process. Each keeps one pooled connection for its lock while its work takes another at a
 * time; with 4 of the pool's 10 held, the work of every holder (and every other request) still finds one.
 */
const HOLDERS = 4;

/** The advisory lock space of content keys (the two-number form; migrations use the one-number form). */
const CONTENT_KEY_SPACE = 0x64316b; // "d1k"

export function contentKeyLocks(db: Kysely<Tables>, dialect: "sqlite" | "postgres"): ContentKeyLocks {
  if (dialect === "sqlite") return { hold: (_key, work) => work() };
  const slots = semaphore(HOLDERS);
  return {
    hold: (key, work) =>
      slots.run(() =>
        db.transaction().execute(async (tx) => {
          // Two keys whose hashes collide only wait for each other.
          await sql`select pg_advisory_xact_lock(${CONTENT_KEY_SPACE}, hashtext(${key}))`.execute(tx);
          return work();
        }),
      ),
  };
}

function semaphore(size: number): { run<T>(work: () => Promise<T>): Promise<T> } {
  let free = size;
  const waiting: (() => void)[] = [];
  return {
    async run(work) {
      if (free > 0) free--;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await work();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else free++;
      }
    },
  };
}
