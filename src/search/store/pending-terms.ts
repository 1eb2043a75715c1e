/**
 * PostgreSQL, during a full rebuild from an empty index: the terms' GIN index (kept up, not rebuilt at the end:
 * rebuild-state.ts) takes each page's terms into its pending list, and moving that list into the index was a
 * third of the backends' time at a million documents. By default an insert that finds the list over
 * `gin_pending_list_limit` (4 MB) moves it itself, `work_mem` (4 MB) at a time: a frequent term's posting list
 * is read and written again every few hundred documents, and the writing thread waits for the move.
 *
 * For the rebuild the index's own limit is raised so that no insert moves the list, and the rebuild moves it in
 * larger batches beside its pages (`movePendingTerms`, with MOVE_MEMORY, every MOVE_EVERY documents); the end
 * moves what is left and sets the limit back (END_STATEMENT, among the deferred statements, so an interrupted
 * rebuild still does both when it finishes). Searches over the terms read the pending list whole, so text
 * conditions asked during the rebuild are slower by up to a batch's read.
 */
import { sql } from "kysely";
import type { Database } from "../../db/types.ts";

type Db = Pick<Database, "kysely" | "dialect">;

/** The GIN index of search_docs' terms (migration 0009). */
const TERMS_INDEX = "search_docs_terms";

/** The largest limit PostgreSQL takes (kB): no insert moves the list while the rebuild runs. */
const RAISED_LIMIT_KB = 2_097_151;

/** Documents written between two moves (EML: ~245 terms, ~8 KB of the list, a document: ~160 MB a move). */
export const MOVE_EVERY = 20_000;

/** Memory of one move (the list gathered in sorted batches of this size; a move of MOVE_EVERY EML documents: one). */
const MOVE_MEMORY = "256MB";

/** Raise the index's limit for the rebuild (in the transaction that begins it). */
export async function raisePendingLimit(db: Db): Promise<void> {
  await sql
    .raw(`alter index ${TERMS_INDEX} set (gin_pending_list_limit = ${RAISED_LIMIT_KB})`)
    .execute(db.kysely);
}

const MOVE = `gin_clean_pending_list('${TERMS_INDEX}'::regclass)`;

/**
 * The end's statement (in search_docs' lane): what is left of the list moved, then the default limit back.
 * Moved first, so that no later insert (the node's own) finds a list over the limit and moves it itself.
 */
export const END_STATEMENT = `do $$ begin perform ${MOVE};
  alter index ${TERMS_INDEX} reset (gin_pending_list_limit); end $$`;

/** Move the pending list into the index now, in batches of MOVE_MEMORY (PostgreSQL; nothing on SQLite). */
export async function movePendingTerms(db: Db): Promise<void> {
  if (db.dialect !== "postgres") return;
  await db.kysely.transaction().execute(async (tx) => {
    await sql.raw(`set local maintenance_work_mem = '${MOVE_MEMORY}'`).execute(tx);
    await sql.raw(`select ${MOVE}`).execute(tx);
  });
}
