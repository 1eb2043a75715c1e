/**
 * Where a full rebuild of the search index stands (table search_rebuild, one row while one is unfinished): the
 * last PID written, so an interrupted rebuild resumes after it, and the secondary indexes it dropped.
 * A rebuild that starts on an empty index drops the search tables' secondary (non-unique) indexes, recording
 * their definitions as the database states them, and builds them once at the end: one sorted build instead of
 * maintaining them through every insert. Primary keys and unique indexes stay (writes look rows up by them).
 *
 * SQLite: search_values is keyed by (pid, field, value) (migration 0018) and the pages come in PID order, so its
 * rows go at the end of the key; only its secondary indexes wait for the end.
 *
 * PostgreSQL, same start: search_values gives up its key (field, value, pid) until the end and keeps its index
 * led by pid (the rows come in pid order: it grows at its end), by which a document's rewrite finds its rows;
 * the key is built again at the end, as a unique index first (reads go on meanwhile), then made the key. The
 * end's builds get more memory than PostgreSQL's default 64 MB (BUILD_MEMORY). The terms' GIN index is kept up,
 * its pending list moved in large batches (pending-terms.ts).
 */
import { sql } from "kysely";
import type { Database } from "../../db/types.ts";
import { END_STATEMENT, raisePendingLimit } from "./pending-terms.ts";

type Db = Pick<Database, "kysely" | "dialect">;

const ROW = "full";

/** PostgreSQL: the key given up for the rebuild, and how it comes back at the end (see above). */
const UNKEY = ["alter table search_values drop constraint search_values_key"];
const REKEY = [
  "create unique index search_values_key on search_values (field, value, pid)",
  "alter table search_values add constraint search_values_key primary key using index search_values_key",
];
/**
 * PostgreSQL: memory for each of the end's index builds. A GIN build writes out what it has gathered each time
 * this fills: the default (64 MB) is small for the terms of millions of documents.
 */
const BUILD_MEMORY = "1GB";

export interface RebuildState {
  /** The last PID written (undefined: none yet). */
  after: string | undefined;
  startedAt: number;
  /** How many statements wait for the end of the rebuild (the dropped indexes; PostgreSQL: the values' key). */
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
  const deferred = JSON.parse(row.deferred_indexes) as string[];
  return {
    after: row.after_pid ?? undefined,
    startedAt: Number(row.started_at),
    deferredIndexes: deferred.length,
  };
}

/**
 * Record the start of a full rebuild (one not already under way); on an empty index with `deferIndexes`, drop
 * the secondary indexes in the same transaction (PostgreSQL: and search_values' key).
 */
export async function beginRebuild(db: Db, deferIndexes: boolean): Promise<RebuildState> {
  return db.kysely.transaction().execute(async (tx) => {
    const empty = (await tx.selectFrom("search_docs").select("pid").limit(1).execute()).length === 0;
    const deferred = deferIndexes && empty ? await secondaryIndexes({ kysely: tx, dialect: db.dialect }) : [];
    for (const { name } of deferred) await sql`drop index ${sql.id(name)}`.execute(tx);
    const unkeyed = deferred.length > 0 && db.dialect === "postgres";
    for (const statement of unkeyed ? UNKEY : []) await sql.raw(statement).execute(tx);
    if (unkeyed) await raisePendingLimit({ kysely: tx, dialect: db.dialect });
    const statements = [
      ...(unkeyed ? [...REKEY, END_STATEMENT] : []),
      ...deferred.map((index) => index.definition),
    ];
    const startedAt = Date.now();
    await tx
      .insertInto("search_rebuild")
      .values({
        name: ROW,
        after_pid: null,
        started_at: startedAt,
        deferred_indexes: JSON.stringify(statements),
      })
      .execute();
    return { after: undefined, startedAt, deferredIndexes: statements.length };
  });
}

/** Note that every document up to `after` (in PID order) is written. */
export async function rebuildProgressed(db: Db, after: string): Promise<void> {
  await db.kysely.updateTable("search_rebuild").set({ after_pid: after }).where("name", "=", ROW).execute();
}

/**
 * How far the end of a rebuild is (the deferred statements: minutes at millions of documents): reported as it
 * starts (`done` 0) and as each statement is done, with that statement's index and seconds.
 */
export interface RebuildEnd {
  done: number;
  total: number;
  last?: { index: string; seconds: number };
}

/**
 * Run the statements the rebuild deferred (the dropped indexes; PostgreSQL: the values' key), each in a
 * transaction of its own that also strikes it off the list, and forget the rebuild. PostgreSQL: in lanes run at
 * once on connections of their own (`laneOf`). SQLite: one after the other (one writer).
 */
export async function finishRebuild(db: Db, onEnd?: (end: RebuildEnd) => void): Promise<void> {
  const row = await db.kysely
    .selectFrom("search_rebuild")
    .select("deferred_indexes")
    .where("name", "=", ROW)
    .executeTakeFirst();
  if (!row) return;
  const statements = JSON.parse(row.deferred_indexes) as string[];
  const lanes = new Map<string, string[]>();
  for (const statement of statements) {
    const lane = db.dialect === "postgres" ? laneOf(statement) : "";
    lanes.set(lane, [...(lanes.get(lane) ?? []), statement]);
  }
  const end: RebuildEnd = { done: 0, total: statements.length };
  onEnd?.({ ...end });
  const ran = (index: string, seconds: number) => {
    end.done++;
    onEnd?.({ ...end, last: { index, seconds } });
  };
  const restore = db.dialect === "sqlite" ? await sortInFiles(db) : async () => {};
  try {
    await Promise.all([...lanes.values()].map((lane) => runInTurn(db, lane, ran)));
  } finally {
    await restore();
  }
  await db.kysely.deleteFrom("search_rebuild").where("name", "=", ROW).execute();
}

/**
 * SQLite: the end sorts tens of millions of rows (each index build of search_values). Under
 * temp_store=MEMORY (the node's setting for statement journals) the sorter would hold each sort whole in memory;
 * in temporary files instead, with a larger page cache (which also sizes the sorter's runs: fewer to merge) and
 * a helper thread sorting beside this one. The connection's own settings come back afterwards (the end may run
 * on the node's connection when the file cannot be shared with the rebuild's threads).
 */
async function sortInFiles(db: Db): Promise<() => Promise<void>> {
  const before = await Promise.all(SORT_SETTINGS.map(([name]) => pragma(db, name)));
  for (const [name, value] of SORT_SETTINGS) await sql.raw(`pragma ${name} = ${value}`).execute(db.kysely);
  return async () => {
    for (const [i, [name]] of SORT_SETTINGS.entries())
      await sql.raw(`pragma ${name} = ${before[i]}`).execute(db.kysely);
  };
}
const SORT_SETTINGS = [
  ["temp_store", "FILE"],
  ["cache_size", "-262144"],
  ["threads", "1"],
] as const;

/** A pragma's value (a number: temp_store reads back as 0-2, cache_size negative when set in KiB). */
async function pragma(db: Db, name: string): Promise<number> {
  const result = await sql.raw<Record<string, number>>(`pragma ${name}`).execute(db.kysely);
  return Number(Object.values(result.rows[0] ?? {})[0] ?? 0);
}

/** Each statement in a transaction that strikes it off the list (under the row's lock: lanes run at once). */
async function runInTurn(
  db: Db,
  statements: string[],
  ran: (index: string, seconds: number) => void,
): Promise<void> {
  for (const statement of statements) {
    const began = performance.now();
    await db.kysely.transaction().execute(async (tx) => {
      const postgres = db.dialect === "postgres";
      if (postgres) await sql.raw(`set local maintenance_work_mem = '${BUILD_MEMORY}'`).execute(tx);
      await sql.raw(statement).execute(tx);
      const read = tx.selectFrom("search_rebuild").select("deferred_indexes").where("name", "=", ROW);
      const row = await (postgres ? read.forUpdate() : read).executeTakeFirst();
      if (!row) return;
      const rest = (JSON.parse(row.deferred_indexes) as string[]).filter((other) => other !== statement);
      await tx
        .updateTable("search_rebuild")
        .set({ deferred_indexes: JSON.stringify(rest) })
        .where("name", "=", ROW)
        .execute();
    });
    ran(indexOf(statement), (performance.now() - began) / 1000);
  }
}

/** The index a deferred statement builds (`create [unique] index NAME`, `add constraint NAME`). */
export function indexOf(statement: string): string {
  return /\b(?:index|constraint)\s+"?(\w+)"?/i.exec(statement)?.[1] ?? statement.slice(0, 40);
}

/**
 * PostgreSQL: the lane of a deferred statement. Each table's statements in one lane (index builds of different
 * tables do not block each other), but each secondary index of search_values in a lane of its own, built beside
 * its key: builds of one table take compatible locks, and the key's build spends its last phase (its tree
 * loaded from the sorted rows) on one core, which the other build then uses. The key's two statements stay in
 * one lane, in order.
 */
export function laneOf(statement: string): string {
  if (statement === END_STATEMENT) return "search_docs";
  const table = tableOf(statement) ?? "";
  const index = /^create index\s+"?(\w+)"?/i.exec(statement)?.[1];
  return table === "search_values" && index !== undefined ? index : table;
}

/** The search table a deferred statement works on (`... on [schema.]table ...`, `alter table table ...`). */
function tableOf(statement: string): string | undefined {
  return /\b(?:on|table)\s+(?:\w+\.)?"?(search_\w+)"?/i.exec(statement)?.[1];
}

/**
 * The non-unique indexes of search_docs and search_values, with the statements that create them, less those led
 * by pid (the rebuild's pages come in PID order, so such an index grows at its end: kept up as it goes, not built
 * again).
 */
async function secondaryIndexes(db: Db): Promise<{ name: string; definition: string }[]> {
  const rows =
    db.dialect === "postgres"
      ? await sql<{ name: string; definition: string }>`select indexname as name, indexdef as definition
          from pg_indexes where schemaname = current_schema() and tablename in ('search_docs', 'search_values')
          order by indexname`.execute(db.kysely)
      : await sql<{ name: string; definition: string }>`select name, sql as definition from sqlite_master
          where type = 'index' and tbl_name in ('search_docs', 'search_values') and sql is not null
          order by name`.execute(db.kysely);
  return rows.rows
    .filter((row) => !/^create unique/i.test(row.definition))
    .filter((row) => !LED_BY_PID.test(row.definition))
    .filter((row) => !GIN.test(row.definition))
    .map(({ name, definition }) => ({ name, definition }));
}

/**
 * PostgreSQL's GIN index of the terms: kept up during the rebuild (its pending list takes the new documents'
 * terms), since a GIN build runs on one core and took most of the end (docs/decisions.md).
 */
const GIN = /\busing gin\b/i;

/** An index definition whose first column is pid (`... ("pid", ...` on SQLite, `... (pid, ...` on PostgreSQL). */
const LED_BY_PID = /\(\s*"?pid"?\s*[,)]/;
