/**
 * Writing index entries on PostgreSQL, a batch at a time: the documents' rows as parameters of their own (their
 * large texts reach the backend as they are), the values as one JSON parameter (`json_to_recordset`:
 * JSON.stringify is native, where pg's array literals are escaped value by value in JavaScript); a document is replaced as a whole inside the caller's
 * transaction, in two statements.
 *
 * 1. search_docs is upserted. The row it inserts or updates stays locked until commit, so a concurrent writer of
 *    the same pid waits for this one. It updates an existing row only if that row is the version its snapshot
 *    saw (same ctid): a row another transaction wrote after the snapshot is locked but left alone (ON CONFLICT
 *    ... DO UPDATE ... WHERE), and its pid goes round again in a new statement, which sees that write.
 * 2. search_values, in a statement whose snapshot is taken after those locks. A document that had no row before
 *    (the common case, a create) has no values: its rows are simply inserted. An existing document's rows are
 *    brought to the new set: rows it no longer has deleted, a changed num updated, new rows inserted, unchanged
 *    rows left alone; these three parts touch disjoint rows, so their order inside the statement does not matter.
 */
import { type Kysely, sql } from "kysely";
import type { SearchDocsTable, SearchValuesTable, Tables } from "../../db/schema.ts";

/** A search_docs row as written, with the document's text-field terms (src/search/schema/terms.ts) as an array. */
export type DocRow = Omit<SearchDocsTable, "term_id" | "terms"> & { terms: string[] };

export type ValueRow = SearchValuesTable;

/** A pid goes round at most once (its row is locked by then); more means something else is wrong. */
const ATTEMPTS = 3;

/** How the values of documents that had no row go in (default: an INSERT of one JSON parameter). */
export type InsertFreshValues = (tx: Kysely<Tables>, values: ValueRow[]) => Promise<void>;

/** Replace the index entries of `docs` (distinct pids) with these rows and values. */
export async function writeEntriesPostgres(
  tx: Kysely<Tables>,
  docs: DocRow[],
  values: ValueRow[],
  insertFresh: InsertFreshValues = insertValues,
): Promise<void> {
  if (new Set(docs.map((d) => d.pid)).size !== docs.length)
    throw new Error("A pid occurs twice in one index write.");
  const fresh = new Set<string>();
  const updated = new Set<string>();
  let left = docs;
  for (let attempt = 1; left.length > 0; attempt++) {
    if (attempt > ATTEMPTS)
      throw new Error(`The index entries of ${left.length} documents could not be written.`);
    for (const row of await upsertDocs(tx, left)) (row.fresh ? fresh : updated).add(row.pid);
    left = left.filter((d) => !fresh.has(d.pid) && !updated.has(d.pid));
  }
  const freshValues = values.filter((v) => fresh.has(v.pid));
  if (freshValues.length > 0) await insertFresh(tx, freshValues);
  if (updated.size > 0)
    await replaceValues(
      tx,
      [...updated],
      values.filter((v) => updated.has(v.pid)),
    );
}

/**
 * The pids written, each with whether it had no row in the statement's snapshot; a pid missing from the answer
 * was written by another transaction after that snapshot.
 */
async function upsertDocs(tx: Kysely<Tables>, docs: DocRow[]): Promise<{ pid: string; fresh: boolean }[]> {
  const written: { pid: string; fresh: boolean }[] = [];
  for (let i = 0; i < docs.length; i += DOCS_PER_STATEMENT) {
    const rows = docs.slice(i, i + DOCS_PER_STATEMENT).map(docValues);
    const result = await sql<{ pid: string; fresh: boolean }>`insert into search_docs as s
        (pid, doc, science, format_type, obsoleted, archived, is_public, date_uploaded, format_id, terms)
      values ${sql.join(rows)}
      on conflict (pid) do update set doc = excluded.doc, science = excluded.science,
        format_type = excluded.format_type, obsoleted = excluded.obsoleted, archived = excluded.archived,
        is_public = excluded.is_public, date_uploaded = excluded.date_uploaded, format_id = excluded.format_id,
        terms = excluded.terms
      where s.ctid = (select seen.ctid from search_docs seen where seen.pid = excluded.pid)
      returning s.pid, not exists (select 1 from search_docs seen where seen.pid = s.pid) as fresh`.execute(
      tx,
    );
    written.push(...result.rows);
  }
  return written;
}

/** 10 parameters a document: well under PostgreSQL's 65,535 a statement. */
const DOCS_PER_STATEMENT = 1000;

/**
 * A document's row as parameters of their own, not inside one JSON parameter: a text parameter reaches the
 * backend as it is, where the JSON was parsed twice (checked, then read) and every character of the stored
 * fields' own JSON unescaped. The terms go as one space-separated text (a term holds no whitespace, terms.ts).
 */
function docValues(d: DocRow) {
  return sql`(${d.pid}, ${d.doc}, ${d.science}, ${d.format_type}, ${d.obsoleted}, ${d.archived}, ${d.is_public},
    ${d.date_uploaded}, ${d.format_id}, string_to_array(${d.terms.join(" ")}, ' '))`;
}

/** The rows as one JSON parameter, read back as a table (`as v(...)` follows it). */
function valuesTable(values: ValueRow[]) {
  return sql`json_to_recordset(cast(${jsonParameter(values)} as json))`;
}

/**
 * JSON.stringify writes a lone UTF-16 surrogate as an escape, which PostgreSQL refuses to turn into text; pg
 * sent such a string's text with U+FFFD in its place, and so does this (looked for only when an escape is there).
 */
function jsonParameter(rows: readonly object[]): string {
  const json = JSON.stringify(rows);
  if (!/\\u[dD][89a-fA-F]/.test(json)) return json;
  return JSON.stringify(rows, (_key, value: unknown) =>
    typeof value === "string" ? value.replace(/\p{Cs}/gu, "\uFFFD") : value,
  );
}

async function insertValues(tx: Kysely<Tables>, values: ValueRow[]): Promise<void> {
  await sql`insert into search_values (pid, field, value, num)
    select * from ${valuesTable(values)} as v(pid text, field text, value text, num double precision)`.execute(
    tx,
  );
}

async function replaceValues(tx: Kysely<Tables>, pids: string[], values: ValueRow[]): Promise<void> {
  await sql`with new_values as (
      select * from ${valuesTable(values)} as v(pid text, field text, value text, num double precision)
    ), old_values as (
      select pid, field, value, num from search_values where pid = any(cast(${pids} as text[]))
    ), gone as (
      delete from search_values s using old_values o
      where s.pid = o.pid and s.field = o.field and s.value = o.value
        and not exists (select 1 from new_values v where v.pid = o.pid and v.field = o.field and v.value = o.value)
    ), changed as (
      update search_values s set num = v.num from old_values o join new_values v
        on v.pid = o.pid and v.field = o.field and v.value = o.value
      where s.pid = o.pid and s.field = o.field and s.value = o.value and o.num is distinct from v.num
    )
    insert into search_values (pid, field, value, num) select pid, field, value, num from new_values v
    where not exists (select 1 from old_values o where o.pid = v.pid and o.field = v.field and o.value = v.value)`.execute(
    tx,
  );
}
