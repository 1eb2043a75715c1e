/**
 * Migration 0009-search-speed on an existing index: documents written in the 0004 layout (text-field tokens as
 * search_values rows, no terms, no format_id) answer the same queries after the migration moves them over, on
 * both dialects.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { sql } from "kysely";
import type { Database } from "../../../src/db/types.ts";
import { searchUncached } from "../../../src/search/answers/search.ts";
import { SolrParams } from "../../../src/search/query/params.ts";
import { parseSearchRequest } from "../../../src/search/query/parse-request.ts";
import { DocumentBuilder, withCopyFields } from "../../../src/search/schema/document.ts";
import { fieldSpec } from "../../../src/search/schema/fields.ts";
import { tokenize } from "../../../src/search/schema/tokens.ts";
import { type IndexEntry, writeDocuments } from "../../../src/search/store/index-store.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { searchIndexOf } from "../../helpers/db/search-index.ts";

const WORDS = ["Soil", "water", "Carbon", "flux", "Ärger", "zebra"];

function corpus(): IndexEntry[] {
  return Array.from({ length: 20 }, (_, n) => ({
    pid: `m-${String(n).padStart(2, "0")}`,
    sysmeta: new DocumentBuilder()
      .add("id", `m-${String(n).padStart(2, "0")}`)
      .add("formatType", n % 4 === 0 ? "DATA" : "METADATA")
      .add("formatId", n % 4 === 0 ? "text/csv" : "eml://ecoinformatics.org/eml-2.1.1")
      .add("readPermission", "public")
      .add("isPublic", true)
      .add("archived", false).fields,
    science: new DocumentBuilder()
      .add("title", `${WORDS[n % 6]} ${WORDS[(n * 5) % 6]} survey ${n}`)
      .add("abstract", n % 3 === 0 ? undefined : `About ${WORDS[(n + 2) % 6]}`)
      .add("keywords", WORDS[n % 6], WORDS[(n + 1) % 6])
      .add("contactOrganization", n % 2 === 0 ? "NCEAS" : undefined).fields,
  }));
}

const QUERIES = [
  "title:soil",
  'title:"carbon flux"',
  "title:so*",
  "title:*rge*",
  "title:[c TO s]",
  "abstract:*",
  "-abstract:*",
  "contactOrganizationText:nceas",
  "formatId:*csv*",
  "keywords:Soil AND -title:zebra",
];

async function answers(db: Database): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const q of QUERIES) {
    const params = new SolrParams();
    for (const [k, v] of Object.entries({ q, rows: "100", sort: "id asc", fl: "id" })) params.add(k, v);
    for (const f of ["title", "keywords", "contactOrganizationText"]) params.add("facet.field", f);
    params.add("facet", "true");
    const r = await searchUncached(searchIndexOf(db), parseSearchRequest(params), "all");
    out.push({ q, numFound: r.numFound, docs: r.docs, facets: r.facets?.facet_fields });
  }
  return out;
}

/** The search_values rows the 0004 layout held for text fields: one per (field, token). */
function oldTextRows(entries: IndexEntry[]) {
  return entries.flatMap(({ pid, sysmeta, science }) => {
    const doc = withCopyFields(new Map([...science, ...sysmeta]));
    return [...doc].flatMap(([field, values]) =>
      fieldSpec(field)?.type === "text"
        ? [...new Set(values.flatMap((v) => tokenize(String(v))))].map((value) => ({
            pid,
            field,
            value,
            num: null,
          }))
        : [],
    );
  });
}

/** Turn a current index back into the 0004 layout, as a node last migrated before 0009 holds it. */
async function downgrade(db: Database, entries: IndexEntry[]): Promise<void> {
  const k = db.kysely;
  if (db.dialect === "sqlite") {
    for (const statement of [
      "drop table search_terms_vocab",
      "drop table search_terms",
      "drop index search_docs_term",
      "drop index search_docs_filter",
      "alter table search_docs drop column term_id",
      "alter table search_docs drop column format_id",
    ])
      await sql.raw(statement).execute(k);
  } else {
    for (const statement of [
      "drop index search_docs_terms",
      "drop index search_docs_filter",
      "alter table search_docs drop column terms",
      "alter table search_docs drop column format_id",
    ])
      await sql.raw(statement).execute(k);
  }
  await k.insertInto("search_values").values(oldTextRows(entries)).execute();
  await sql`delete from d1node_migrations where name = '0009-search-speed'`.execute(k);
}

forEachDialect((_name, open) => {
  it("moves an existing index over and answers as before", async () => {
    const db = await open();
    const entries = corpus();
    await writeDocuments(db, entries);
    const expected = await answers(db);
    assert.ok((expected[0] as { numFound: number }).numFound > 0);
    await downgrade(db, entries);
    await db.close();
    const migrated = await open(db);
    assert.deepEqual(await answers(migrated), expected);
    const left = await sql<{ n: number | string }>`select count(*) as n from search_values
      where field in ('title', 'abstract', 'text', 'contactOrganizationText')`.execute(migrated.kysely);
    assert.equal(Number(left.rows[0]?.n), 0, "text-field rows leave search_values");
  });
});
