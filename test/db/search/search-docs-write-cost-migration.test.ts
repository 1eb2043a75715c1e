/**
 * Migration 0019-search-docs-write-cost on PostgreSQL: search_docs.terms compares byte-wise (collate "C") and the
 * large columns are compressed with lz4 where the server has it; an index written before answers the same text
 * queries afterwards (its GIN index built again), and documents written after it read back as written.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { sql } from "kysely";
import type { Database } from "../../../src/db/types.ts";
import { searchUncached } from "../../../src/search/answers/search.ts";
import { SolrParams } from "../../../src/search/query/params.ts";
import { parseSearchRequest } from "../../../src/search/query/parse-request.ts";
import { DocumentBuilder } from "../../../src/search/schema/document.ts";
import { searchRepository } from "../../../src/search/store/index.ts";
import { type IndexEntry, writeDocuments } from "../../../src/search/store/index-store.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { searchIndexOf } from "../../helpers/db/search-index.ts";

const TITLES = ["Zooplankton of Érié", "zooplankton counts", "Ärctic ice", "arctic birds", "Œcology notes"];

function corpus(from = 0): IndexEntry[] {
  return TITLES.map((title, n) => ({
    pid: `t-${from + n}`,
    sysmeta: new DocumentBuilder()
      .add("id", `t-${from + n}`)
      .add("formatType", "METADATA")
      .add("readPermission", "public")
      .add("isPublic", true).fields,
    science: new DocumentBuilder().add("title", title).add("abstract", `${"long abstract ".repeat(300)}${n}`)
      .fields,
  }));
}

async function answers(db: Database): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const q of [
    "title:zooplankton",
    "title:ärctic",
    "title:arc*",
    "title:érié",
    "title:[a TO b]",
    "title:*",
  ]) {
    const params = new SolrParams();
    for (const [k, v] of Object.entries({ q, rows: "100", sort: "id asc", fl: "id,title" })) params.add(k, v);
    const r = await searchUncached(searchIndexOf(db), parseSearchRequest(params), "all");
    out.push({ q, numFound: r.numFound, docs: r.docs });
  }
  return out;
}

/** The terms column's collation and the large columns' compression ('p' pglz, 'l' lz4, '' the default). */
async function columnsOf(db: Database): Promise<{ collation: string; compression: Record<string, string> }> {
  const collation = await sql<{ collation: string }>`select collation_name as collation
    from information_schema.columns where table_schema = current_schema() and table_name = 'search_docs'
    and column_name = 'terms'`.execute(db.kysely);
  const compression = await sql<{ name: string; method: string }>`select attname as name,
    attcompression::text as method from pg_attribute
    where attrelid = 'search_docs'::regclass and attname in ('doc', 'science', 'terms')`.execute(db.kysely);
  return {
    collation: collation.rows[0]?.collation ?? "",
    compression: Object.fromEntries(compression.rows.map((r) => [r.name, r.method])),
  };
}

async function lz4Built(db: Database): Promise<boolean> {
  const rows = await sql<{ values: string[] }>`select enumvals as values from pg_settings
    where name = 'default_toast_compression'`.execute(db.kysely);
  return rows.rows[0]?.values.includes("lz4") ?? false;
}

forEachDialect((name, open) => {
  if (name !== "postgres") return;

  it("compares terms byte-wise, compresses with lz4, and answers as before", async () => {
    const db = await open();
    // The columns as migrations 0009-0018 left them, and an index written in that shape.
    await sql`alter table search_docs alter column terms type text[] collate "default"`.execute(db.kysely);
    for (const column of ["doc", "science", "terms"])
      await sql`alter table search_docs alter column ${sql.ref(column)} set compression default`.execute(
        db.kysely,
      );
    await writeDocuments(db, corpus());
    const expected = await answers(db);
    assert.equal((expected[0] as { numFound: number }).numFound, 2);
    await sql`delete from d1node_migrations where name = '0019-search-docs-write-cost'`.execute(db.kysely);
    await db.close();

    const migrated = await open(db);
    const lz4 = await lz4Built(migrated);
    assert.deepEqual(await columnsOf(migrated), {
      collation: "C",
      compression: lz4 ? { doc: "l", science: "l", terms: "l" } : { doc: "", science: "", terms: "" },
    });
    assert.deepEqual(await answers(migrated), expected);
    // The rebuilt GIN index serves term queries (the query's collation is the column's).
    const plan = await migrated.kysely.transaction().execute(async (tx) => {
      await sql`set local enable_seqscan = off`.execute(tx);
      return sql<{ "QUERY PLAN": string }>`explain select pid from search_docs
        where terms @> cast(${["title__zooplankton"]} as text[])`.execute(tx);
    });
    assert.match(plan.rows.map((r) => r["QUERY PLAN"]).join("\n"), /search_docs_terms/);

    // Written after the migration (rewrites and new documents): read back as written, found by their terms.
    await writeDocuments(migrated, [...corpus(), ...corpus(10)]);
    const stored = await searchRepository(migrated).readStoredDocs(["t-0", "t-12"]);
    assert.equal(stored.get("t-0")?.title, TITLES[0]);
    assert.equal(stored.get("t-12")?.title, TITLES[2]);
    const after = (await answers(migrated)) as { numFound: number }[];
    assert.deepEqual(
      after.map((a) => a.numFound),
      (expected as { numFound: number }[]).map((e) => e.numFound * 2),
    );
  });
});
