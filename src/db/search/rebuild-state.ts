/**
 * Where a full rebuild of the search index stands (table search_rebuild, one row while one is unfinished): the
 * last PID written, so an interrupted rebuild resumes after it, and the secondary indexes it dropped.
 * A rebuild that starts on an empty index drops the search tables' secondary (non-unique) indexes, recording
 * their definitions as the database states them, and builds them once at the end: one sorted build instead of
 * maintaining them through every insert. Primary keys and unique indexes stay (writes look rows up by them).
 */
import { sql } from "kysely";
import type { Database } from "../types.ts";

type Db = Pick<Database, "kysely" | "dialect">;

const ROW = "full";

export interface RebuildState {
  /** The last PID written (undefined: none yet). */
  after: string | undefined;
  startedAt: number;
  /** How many secondary indexes wait for the end of the rebuild. */
  deferredIndexes: number;
}

/** The unfinished rebuild, if any. */
export async function rebuildState(db: Db): Promise<RebuildState | undefined> {
  const row = await db.kysely
    .selectFrom("search_rebuild")
    .selectAll()
    .where("name", "=", ROW)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    after: row.after_pid ?? undefined,
    startedAt: Number(row.started_at),
    deferredIndexes: (JSON.parse(row.deferred_indexes) as string[]).length,
  };
}

/**
 * Record the start of a full rebuild (one not already under way); on an empty index with `deferIndexes`, drop
 * the secondary indexes in the same transaction.
 */
export async function beginRebuild(db: Db, deferIndexes: boolean): Promise<RebuildState> {
  return db.kysely.transaction().execute(async (tx) => {
    const empty = (await tx.selectFrom("search_docs").select("pid").limit(1).execute()).length === 0;
    const deferred = deferIndexes && empty ? await secondaryIndexes({ kysely: tx, dialect: db.dialect }) : [];
    for (const { name } of deferred) await sql`drop index ${sql.id(name)}`.execute(tx);
    const startedAt = Date.now();
    await tx
      .insertInto("search_rebuild")
      .values({
        name: ROW,
        after_pid: null,
        started_at: startedAt,
        deferred_indexes: JSON.stringify(deferred.map((index) => index.definition)),
      })
      .execute();
    return { after: undefined, startedAt, deferredIndexes: deferred.length };
  });
}

/** Note that every document up to `after` (in PID order) is written. */
export async function rebuildProgressed(db: Db, after: string): Promise<void> {
  await db.kysely.updateTable("search_rebuild").set({ after_pid: after }).where("name", "=", ROW).execute();
}

/**
 * Build the indexes the rebuild dropped, each in a transaction of its own that also strikes it off the list
 * (the write lock is held for one index at a time), and forget the rebuild.
 */
export async function finishRebuild(db: Db): Promise<void> {
  for (let done = false; !done; ) {
    done = await db.kysely.transaction().execute(async (tx) => {
      const row = await tx
        .selectFrom("search_rebuild")
        .selectAll()
        .where("name", "=", ROW)
        .executeTakeFirst();
      if (!row) return true;
      const [next, ...rest] = JSON.parse(row.deferred_indexes) as string[];
      if (next === undefined) {
        await tx.deleteFrom("search_rebuild").where("name", "=", ROW).execute();
        return true;
      }
      await sql.raw(next).execute(tx);
      await tx
        .updateTable("search_rebuild")
        .set({ deferred_indexes: JSON.stringify(rest) })
        .where("name", "=", ROW)
        .execute();
      return false;
    });
  }
}

/** The non-unique indexes of search_docs and search_values, with the statements that create them. */
async function secondaryIndexes(db: Db): Promise<{ name: string; definition: string }[]> {
  const rows =
    db.dialect === "postgres"
      ? await sql<{ name: string; definition: string }>`select indexname as name, indexdef as definition
          from pg_indexes where schemaname = current_schema() and tablename in ('search_docs', 'search_values')
          order by indexname`.execute(db.kysely)
      : await sql<{ name: string; definition: string }>`select name, sql as definition from sqlite_master
          where type = 'index' and tbl_name in ('search_docs', 'search_values') and sql is not null
          order by name`.execute(db.kysely);
  return rows.rows.filter((row) => !/^create unique/i.test(row.definition));
}
