/**
 * The index in the database: a document's rows are replaced as a whole, in one transaction, so a query sees
 * the old document or the new one. search_docs keeps the stored fields (JSON, as Solr returns them) and the
 * columns the common filters use; search_values one row per (field, value) for everything a query may ask.
 */
import { type Kysely, PostgresAdapter, sql } from "kysely";
import { indexChangeLog } from "../db/index-changes.ts";
import type { Tables } from "../db/schema.ts";
import { formatSolrDate } from "./dates.ts";
import { type FieldValue, type SearchDocument, withCopyFields } from "./document.ts";
import { type FieldSpec, fieldSpec } from "./fields.ts";
import { writeEntriesPostgres } from "./postgres-write.ts";
import { documentTerms } from "./terms.ts";
import { tokenize } from "./tokens.ts";

/** A stored document as the response writers see it: field -> value or values, dates as Solr strings. */
export type StoredDoc = Record<string, FieldValue | FieldValue[]>;

interface ValueRow {
  pid: string;
  field: string;
  value: string;
  num: number | null;
}

const BATCH = 400;
/** search_values rows per INSERT. */
const VALUE_BATCH = 1000;

/** Whether `db` is a PostgreSQL database (the SQL of the two differs for terms). */
export function isPostgres(db: Kysely<Tables>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

export interface IndexEntry {
  pid: string;
  sysmeta: SearchDocument;
  science: SearchDocument;
}

/** Replace the index entry of `pid` with these system-metadata and science-metadata fields. */
export function writeDocument(
  db: Kysely<Tables>,
  pid: string,
  sysmeta: SearchDocument,
  science: SearchDocument,
): Promise<void> {
  return writeDocuments(db, [{ pid, sysmeta, science }]);
}

/** Replace several index entries in one transaction (bulk indexing). */
export async function writeDocuments(db: Kysely<Tables>, entries: IndexEntry[]): Promise<void> {
  const prepared = entries.map(prepare);
  const postgres = isPostgres(db);
  const pids = prepared.map((p) => p.row.pid);
  await rewrite(db, pids, async (tx) => {
    if (postgres) await writePostgres(tx, prepared);
    else await writeSqlite(tx, prepared);
  });
}

/** `work` in a transaction that tells the other processes (on commit) and then this one which PIDs it rewrote. */
async function rewrite(
  db: Kysely<Tables>,
  pids: readonly string[],
  work: (tx: Kysely<Tables>) => Promise<void>,
): Promise<void> {
  const changes = indexChangeLog(db);
  try {
    await db.transaction().execute(async (tx) => {
      await work(tx);
      await changes.announce?.(tx, pids);
    });
  } finally {
    // Noted even when the outcome is unknown (a failed commit): rereading an unchanged document is harmless.
    changes.note(pids);
  }
}

type Prepared = ReturnType<typeof prepare>;

/** PostgreSQL: see postgres-write.ts. */
async function writePostgres(tx: Kysely<Tables>, prepared: Prepared[]): Promise<void> {
  for (let i = 0; i < prepared.length; i += BATCH) {
    const batch = prepared.slice(i, i + BATCH);
    await writeEntriesPostgres(
      tx,
      batch.map((p) => ({ ...p.row, terms: p.terms })),
      batch.flatMap((p) => p.values),
    );
  }
}

/** SQLite: each document keeps its term_id (new ones take the next free); terms go to the FTS5 table. */
async function writeSqlite(tx: Kysely<Tables>, prepared: Prepared[]): Promise<void> {
  const ids = new Map<string, number>();
  // New documents take ids above every id in use before the rewrite (the documents rewritten keep theirs).
  const top = await sql<{ n: number | null }>`select max(term_id) as n from search_docs`.execute(tx);
  let next = (top.rows[0]?.n ?? 0) + 1;
  for (let i = 0; i < prepared.length; i += BATCH) {
    const pids = prepared.slice(i, i + BATCH).map((p) => p.row.pid);
    const old = await tx
      .selectFrom("search_docs")
      .select(["pid", "term_id"])
      .where("pid", "in", pids)
      .execute();
    for (const row of old) if (row.term_id != null) ids.set(row.pid, row.term_id);
    const oldIds = old.flatMap((row) => (row.term_id == null ? [] : [row.term_id]));
    if (oldIds.length > 0)
      await sql`delete from search_terms where rowid in (${sql.join(oldIds)})`.execute(tx);
    await tx.deleteFrom("search_values").where("pid", "in", pids).execute();
    await tx.deleteFrom("search_docs").where("pid", "in", pids).execute();
  }
  for (const p of prepared) {
    const termId = ids.get(p.row.pid) ?? next++;
    ids.set(p.row.pid, termId);
    await tx
      .insertInto("search_docs")
      .values({ ...p.row, term_id: termId })
      .execute();
    if (p.terms.length > 0)
      await sql`insert into search_terms (rowid, terms) values (${termId}, ${p.terms.join(" ")})`.execute(tx);
  }
  const rows = prepared.flatMap((p) => p.values);
  for (let i = 0; i < rows.length; i += VALUE_BATCH) {
    await tx
      .insertInto("search_values")
      .values(rows.slice(i, i + VALUE_BATCH))
      .execute();
  }
}

function prepare({ pid, sysmeta, science }: IndexEntry) {
  const merged = new Map(science);
  for (const [name, values] of sysmeta) merged.set(name, values);
  const doc = withCopyFields(merged);
  const one = (name: string) => doc.get(name)?.[0];
  const uploaded = one("dateUploaded");
  const formatType = one("formatType");
  const formatId = one("formatId");
  const { values, tokens } = valueRows(pid, doc);
  return {
    row: {
      pid,
      doc: JSON.stringify(storedDoc(doc)),
      science: JSON.stringify([...science]),
      format_type: typeof formatType === "string" ? formatType : null,
      obsoleted: doc.has("obsoletedBy") ? 1 : 0,
      archived: one("archived") === true ? 1 : 0,
      is_public: one("isPublic") === true ? 1 : 0,
      date_uploaded: typeof uploaded === "number" ? uploaded : null,
      format_id: typeof formatId === "string" ? formatId : null,
    },
    values,
    terms: documentTerms(tokens),
  };
}

/** The science-metadata fields last extracted for `pid`, or undefined when it is not indexed. */
export async function readScience(db: Kysely<Tables>, pid: string): Promise<SearchDocument | undefined> {
  const row = await db.selectFrom("search_docs").select("science").where("pid", "=", pid).executeTakeFirst();
  return row ? new Map(JSON.parse(row.science) as [string, FieldValue[]][]) : undefined;
}

export async function removeDocument(db: Kysely<Tables>, pid: string): Promise<void> {
  const postgres = isPostgres(db);
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
export async function readStoredDocs(db: Kysely<Tables>, pids: string[]): Promise<Map<string, StoredDoc>> {
  const out = new Map<string, StoredDoc>();
  for (let i = 0; i < pids.length; i += BATCH) {
    const rows = await db
      .selectFrom("search_docs")
      .select(["pid", "doc"])
      .where("pid", "in", pids.slice(i, i + BATCH))
      .execute();
    for (const row of rows) out.set(row.pid, JSON.parse(row.doc) as StoredDoc);
  }
  return out;
}

/** search_values rows of the non-text fields, and the distinct tokens of each text field. */
function valueRows(
  pid: string,
  doc: SearchDocument,
): { values: ValueRow[]; tokens: Map<string, Set<string>> } {
  const values: ValueRow[] = [];
  const tokens = new Map<string, Set<string>>();
  for (const [name, list] of doc) {
    const spec = fieldSpec(name);
    if (!spec || list.length === 0) continue;
    if (spec.type === "text") {
      const set = tokens.get(name) ?? new Set<string>();
      for (const value of list) for (const token of tokenize(String(value))) set.add(token);
      tokens.set(name, set);
      continue;
    }
    const seen = new Set<string>();
    for (const value of list) {
      const text = indexedText(spec, value);
      if (seen.has(text)) continue;
      seen.add(text);
      values.push({ pid, field: name, value: text, num: typeof value === "number" ? value : null });
    }
  }
  return { values, tokens };
}

/** The text form of a value in search_values (and in facets): dates as Solr writes them. */
export function indexedText(spec: FieldSpec, value: FieldValue): string {
  if (spec.type === "date" && typeof value === "number") return formatSolrDate(value);
  return String(value);
}

export function storedDoc(doc: SearchDocument): StoredDoc {
  const out: StoredDoc = {};
  for (const [name, values] of doc) {
    const spec = fieldSpec(name);
    if (!spec?.stored || values.length === 0) continue;
    const shown = values.map((v) => (spec.type === "date" && typeof v === "number" ? formatSolrDate(v) : v));
    out[name] = spec.multiValued ? shown : (shown[0] as FieldValue);
  }
  return out;
}
