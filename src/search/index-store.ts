/**
 * The index in the database: a document's rows are replaced as a whole, in one transaction, so a query sees
 * the old document or the new one. search_docs keeps the stored fields (JSON, as Solr returns them) and the
 * columns the common filters use; search_values one row per (field, value) for everything a query may ask.
 */
import { type Kysely, PostgresAdapter, sql, type Transaction } from "kysely";
import type { Tables } from "../db/schema.ts";
import { formatSolrDate } from "./dates.ts";
import { type FieldValue, type SearchDocument, withCopyFields } from "./document.ts";
import { type FieldSpec, fieldSpec } from "./fields.ts";
import { indexChanged } from "./result-cache.ts";
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
  indexChanged(db);
  await db.transaction().execute(async (tx) => {
    for (let i = 0; i < prepared.length; i += BATCH) {
      const pids = prepared.slice(i, i + BATCH).map((p) => p.row.pid);
      await tx.deleteFrom("search_values").where("pid", "in", pids).execute();
      await tx.deleteFrom("search_docs").where("pid", "in", pids).execute();
    }
    for (let i = 0; i < prepared.length; i += 50) {
      await tx
        .insertInto("search_docs")
        .values(prepared.slice(i, i + 50).map((p) => p.row))
        .execute();
    }
    await insertValues(
      tx,
      prepared.flatMap((p) => p.values),
    );
  });
  indexChanged(db);
}

/**
 * The value rows. On PostgreSQL one statement per few thousand rows, each column bound as one array and
 * unnested (thousands of single parameters cost the server more than the insert itself).
 */
async function insertValues(tx: Transaction<Tables>, rows: ValueRow[]): Promise<void> {
  if (tx.getExecutor().adapter instanceof PostgresAdapter) {
    for (let i = 0; i < rows.length; i += 5000) {
      const chunk = rows.slice(i, i + 5000);
      await sql`insert into search_values (pid, field, value, num)
        select * from unnest(${chunk.map((r) => r.pid)}::text[], ${chunk.map((r) => r.field)}::text[],
          ${chunk.map((r) => r.value)}::text[], ${chunk.map((r) => r.num)}::float8[])`.execute(tx);
    }
    return;
  }
  for (let i = 0; i < rows.length; i += BATCH) {
    await tx
      .insertInto("search_values")
      .values(rows.slice(i, i + BATCH))
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
    },
    values: valueRows(pid, doc),
  };
}

/** The science-metadata fields last extracted for `pid`, or undefined when it is not indexed. */
export async function readScience(db: Kysely<Tables>, pid: string): Promise<SearchDocument | undefined> {
  const row = await db.selectFrom("search_docs").select("science").where("pid", "=", pid).executeTakeFirst();
  return row ? new Map(JSON.parse(row.science) as [string, FieldValue[]][]) : undefined;
}

export async function removeDocument(db: Kysely<Tables>, pid: string): Promise<void> {
  indexChanged(db);
  await db.transaction().execute(async (tx) => {
    await tx.deleteFrom("search_values").where("pid", "=", pid).execute();
    await tx.deleteFrom("search_docs").where("pid", "=", pid).execute();
  });
  indexChanged(db);
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

function valueRows(pid: string, doc: SearchDocument): ValueRow[] {
  const rows: ValueRow[] = [];
  const seen = new Set<string>();
  const push = (field: string, value: string, num: number | null) => {
    const key = `${field}\u0000${value}`;
    if (seen.has(key)) return;
    seen.add(key);
    rows.push({ pid, field, value, num });
  };
  for (const [name, values] of doc) {
    const spec = fieldSpec(name);
    if (!spec) continue;
    for (const value of values) {
      if (spec.type === "text") for (const token of tokenize(String(value))) push(name, token, null);
      else push(name, indexedText(spec, value), typeof value === "number" ? value : null);
    }
  }
  return rows;
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
