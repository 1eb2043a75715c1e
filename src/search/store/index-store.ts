/**
 * The index in the database: a document's rows are replaced as a whole, in one transaction, so a query sees
 * the old document or the new one. search_docs keeps the stored fields (JSON, as Solr returns them) and the
 * columns the common filters use; search_values one row per (field, value) for everything a query may ask.
 */
import { type Kysely, PostgresAdapter, sql } from "kysely";
import { FixedSql, insertRows, listSql } from "../../db/engine/statement-texts.ts";
import type { Tables } from "../../db/schema.ts";
import type { Database } from "../../db/types.ts";
import type { FieldValue, SearchDocument } from "../schema/document.ts";
import { type IndexEntry, type IndexRows, indexRows, type StoredDoc } from "../schema/index-rows.ts";

export type { IndexEntry } from "../schema/index-rows.ts";

import { type InsertFreshValues, writeEntriesPostgres } from "./postgres-write.ts";

/** What an index write needs: the database and its index change log. */
export type IndexDb = Pick<Database, "kysely" | "indexChanges">;
/** The database a search index is read from and written to. */
export type SearchDb = Pick<Database, "kysely" | "dialect" | "indexChanges">;

const BATCH = 400;
/** search_values rows per INSERT. */
const VALUE_BATCH = 1000;

/** Whether `db` is a PostgreSQL database (the SQL of the two differs for terms). */
export function isPostgres(db: Kysely<Tables>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Replace the index entry of `pid` with these system-metadata and science-metadata fields. */
export function writeDocument(
  db: IndexDb,
  pid: string,
  sysmeta: SearchDocument,
  science: SearchDocument,
): Promise<void> {
  return writeDocuments(db, [{ pid, sysmeta, science }]);
}

/** Replace several index entries in one transaction (bulk indexing). */
export function writeDocuments(db: IndexDb, entries: IndexEntry[]): Promise<void> {
  return writeRows(db, entries.map(indexRows));
}

/** Replace several index entries, already made rows (`indexRows`), in one transaction. */
export async function writeRows(db: IndexDb, prepared: IndexRows[]): Promise<void> {
  const postgres = isPostgres(db.kysely);
  const pids = prepared.map((p) => p.row.pid);
  await rewrite(db, pids, async (tx) => {
    if (postgres) await writePostgres(tx, prepared);
    else await writeSqlite(tx, prepared);
  });
}

/** `work` in a transaction that tells the other processes (on commit) and then this one which PIDs it rewrote. */
async function rewrite(
  db: IndexDb,
  pids: readonly string[],
  work: (tx: Kysely<Tables>) => Promise<void>,
): Promise<void> {
  const changes = db.indexChanges;
  try {
    await db.kysely.transaction().execute(async (tx) => {
      await work(tx);
      await changes.announce?.(tx, pids);
    });
  } finally {
    // Noted even when the outcome is unknown (a failed commit): rereading an unchanged document is harmless.
    changes.note(pids);
  }
}

/**
 * Documents another connection wrote and committed (a rebuild's thread): noted in the change log, and
 * (PostgreSQL) announced to the other processes, as `rewrite` does inside its transaction.
 */
export async function noteWrittenElsewhere(db: IndexDb, pids: readonly string[]): Promise<void> {
  try {
    if (pids.length > 0) await db.indexChanges.announce?.(db.kysely, pids);
  } finally {
    db.indexChanges.note(pids);
  }
}

type Prepared = IndexRows;

/** PostgreSQL: see postgres-write.ts (`insertFresh`: how new documents' values go in, an INSERT by default). */
export async function writePostgres(
  tx: Kysely<Tables>,
  prepared: Prepared[],
  insertFresh?: InsertFreshValues,
): Promise<void> {
  for (let i = 0; i < prepared.length; i += BATCH) {
    const batch = prepared.slice(i, i + BATCH);
    await writeEntriesPostgres(
      tx,
      batch.map((p) => ({ ...p.row, terms: p.terms })),
      batch.flatMap((p) => p.values),
      insertFresh,
    );
  }
}

const MAX_TERM_ID = new FixedSql("select max(term_id) as n from search_docs");
const INSERT_TERMS = new FixedSql("insert into search_terms (rowid, terms) values (?, ?)");
const DOC_COLUMNS = [
  "pid",
  "doc",
  "science",
  "format_type",
  "obsoleted",
  "archived",
  "is_public",
  "date_uploaded",
  "format_id",
  "term_id",
] as const;
const VALUE_COLUMNS = ["pid", "field", "value", "num"] as const;

/**
 * SQLite: each document keeps its term_id (new ones take the next free); terms go to the FTS5 table. Inside a
 * transaction holding the write lock (`tx` begun immediate: the next free id is read before writing). The
 * statements are written once (fixed-sql.ts): a create's index write runs them for one document.
 */
export async function writeSqlite(tx: Kysely<Tables>, prepared: Prepared[]): Promise<void> {
  const ids = new Map<string, number>();
  // New documents take ids above every id in use before the rewrite (the documents rewritten keep theirs).
  const top = await MAX_TERM_ID.first<{ n: number | null }>(tx, []);
  let next = (top?.n ?? 0) + 1;
  for (let i = 0; i < prepared.length; i += BATCH) {
    const pids = prepared.slice(i, i + BATCH).map((p) => p.row.pid);
    const { rows: old } = await listSql(
      "select pid, term_id from search_docs where pid in",
      pids.length,
    ).run<{
      pid: string;
      term_id: number | null;
    }>(tx, pids);
    // A document's values are written and removed with its row: pids without a row have none to delete.
    if (old.length === 0) continue;
    for (const row of old) if (row.term_id != null) ids.set(row.pid, row.term_id);
    const oldIds = old.flatMap((row) => (row.term_id == null ? [] : [row.term_id]));
    if (oldIds.length > 0)
      await listSql("delete from search_terms where rowid in", oldIds.length).run(tx, oldIds);
    await listSql("delete from search_values where pid in", pids.length).run(tx, pids);
    await listSql("delete from search_docs where pid in", pids.length).run(tx, pids);
  }
  for (const p of prepared) {
    const termId = ids.get(p.row.pid) ?? next++;
    ids.set(p.row.pid, termId);
    await insertRows(tx, "search_docs", DOC_COLUMNS, [{ ...p.row, term_id: termId }]);
    if (p.terms.length > 0) await INSERT_TERMS.run(tx, [termId, p.terms.join(" ")]);
  }
  const rows = prepared.flatMap((p) => p.values);
  rows.sort(byKey);
  for (let i = 0; i < rows.length; i += VALUE_BATCH) {
    await insertRows(tx, "search_values", VALUE_COLUMNS, rows.slice(i, i + VALUE_BATCH));
  }
}

/**
 * search_values rows in the order of its key on SQLite (pid, field, value; migration 0018): the inserts go down
 * neighbouring pages, and a rebuild's pages (in PID order) at the end of the table.
 */
function byKey(a: IndexRows["values"][number], b: IndexRows["values"][number]): number {
  if (a.pid !== b.pid) return a.pid < b.pid ? -1 : 1;
  if (a.field !== b.field) return a.field < b.field ? -1 : 1;
  return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
}

/** The science-metadata fields last extracted for `pid`, or undefined when it is not indexed. */
export async function readScience(
  db: Pick<Database, "kysely">,
  pid: string,
): Promise<SearchDocument | undefined> {
  const row = await db.kysely
    .selectFrom("search_docs")
    .select("science")
    .where("pid", "=", pid)
    .executeTakeFirst();
  return row ? new Map(JSON.parse(row.science) as [string, FieldValue[]][]) : undefined;
}

export async function removeDocument(db: IndexDb, pid: string): Promise<void> {
  const postgres = isPostgres(db.kysely);
  await rewrite(db, [pid], async (tx) => {
    if (!postgres)
      await sql`delete from search_terms where rowid in (select term_id from search_docs where pid = ${pid})`.execute(
        tx,
      );
    // The document's row first, as a write takes it (PostgreSQL row locks in one order: no deadlock).
    await tx.deleteFrom("search_docs").where("pid", "=", pid).execute();
    await tx.deleteFrom("search_values").where("pid", "=", pid).execute();
  });
}

/** Stored fields of documents, by pid. */
export async function readStoredDocs(
  db: Pick<Database, "kysely">,
  pids: string[],
): Promise<Map<string, StoredDoc>> {
  const out = new Map<string, StoredDoc>();
  for (let i = 0; i < pids.length; i += BATCH) {
    const rows = await db.kysely
      .selectFrom("search_docs")
      .select(["pid", "doc"])
      .where("pid", "in", pids.slice(i, i + BATCH))
      .execute();
    for (const row of rows) out.set(row.pid, JSON.parse(row.doc) as StoredDoc);
  }
  return out;
}
