/**
 * Migration 0018-search-values-by-pid on SQLite: an index in the old shape (search_values keyed by (field, value,
 * pid), a (pid, field) index) answers the same queries and holds the same rows once keyed by (pid, field, value);
 * a rebuild under way in the old shape (values staged in search_values_rebuild, indexes deferred) keeps its
 * values, and its end builds the new indexes.
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

function corpus(): IndexEntry[] {
  return Array.from({ length: 30 }, (_, n) => ({
    pid: `v-${String(n).padStart(2, "0")}`,
    sysmeta: new DocumentBuilder()
      .add("id", `v-${String(n).padStart(2, "0")}`)
      .add("formatType", "METADATA")
      .add("formatId", "eml://ecoinformatics.org/eml-2.1.1")
      .add("readPermission", "public")
      .add("isPublic", true)
      .add("size", 100 + n)
      .add("archived", false).fields,
    science: new DocumentBuilder()
      .add("keywords", `k${n % 4}`, `k${(n + 1) % 4}`)
      .add("site", `site ${n % 3}`)
      .add("northBoundCoord", n / 2).fields,
  }));
}

async function answers(db: Database): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const q of [
    "keywords:k1",
    'site:"site 2" AND -keywords:k0',
    "size:[110 TO 120]",
    "northBoundCoord:*",
  ]) {
    const params = new SolrParams();
    for (const [k, v] of Object.entries({ q, rows: "100", sort: "id asc", fl: "id" })) params.add(k, v);
    for (const f of ["keywords", "site"]) params.add("facet.field", f);
    params.add("facet", "true");
    const r = await searchUncached(searchIndexOf(db), parseSearchRequest(params), "all");
    out.push({ q, numFound: r.numFound, docs: r.docs, facets: r.facets?.facet_fields });
  }
  return out;
}

async function valueRows(db: Database): Promise<string[]> {
  const rows = await sql<{
    row: string;
  }>`select pid || '|' || field || '|' || value || '|' || coalesce(num, '') as row
    from search_values order by 1`.execute(db.kysely);
  return rows.rows.map((r) => r.row);
}

async function schemaOf(db: Database, type: "table" | "index"): Promise<string[]> {
  const rows = await sql<{ sql: string }>`select sql from sqlite_master
    where type = ${type} and tbl_name like 'search_values%' and sql is not null order by name`.execute(
    db.kysely,
  );
  return rows.rows.map((r) => r.sql.replace(/\s+/g, " ").replace(/^CREATE INDEX/, "create index"));
}

/** search_values back in the shape of migrations 0004-0017; `staged` rows moved to the old staging table. */
async function oldShape(db: Database, staged?: (row: { pid: string }) => boolean): Promise<void> {
  const k = db.kysely;
  for (const statement of [
    `create table search_values_old (pid text not null, field text not null, value text not null,
      num double precision, primary key (field, value, pid)) without rowid`,
    "insert into search_values_old select pid, field, value, num from search_values",
    "drop table search_values",
    "alter table search_values_old rename to search_values",
    'create index "search_values_pid" on "search_values" ("pid", "field")',
    'create index "search_values_num" on "search_values" ("field", "num", "pid") where "num" is not null',
  ])
    await sql.raw(statement).execute(k);
  if (staged) {
    await sql`create table search_values_rebuild (pid text not null, field text not null, value text not null,
      num real)`.execute(k);
    await sql`create index search_values_rebuild_pid on search_values_rebuild (pid)`.execute(k);
    const rows = await k.selectFrom("search_values").selectAll().execute();
    const moved = rows.filter(staged);
    await k
      .insertInto("search_values_rebuild" as "search_values")
      .values(moved)
      .execute();
    for (const row of moved)
      await k.deleteFrom("search_values").where("pid", "=", row.pid).where("field", "=", row.field).execute();
  }
  await sql`delete from d1node_migrations where name = '0018-search-values-by-pid'`.execute(k);
}

forEachDialect((name, open) => {
  if (name !== "sqlite") return;

  it("keys search_values by pid and answers as before", async () => {
    const db = await open();
    await writeDocuments(db, corpus());
    const expected = { answers: await answers(db), rows: await valueRows(db) };
    assert.ok(expected.rows.length > 100);
    await oldShape(db);
    await db.close();
    const migrated = await open(db);
    assert.deepEqual({ answers: await answers(migrated), rows: await valueRows(migrated) }, expected);
    assert.match(
      (await schemaOf(migrated, "table"))[0] ?? "",
      /primary key \(pid, field, value\)\) without rowid/,
    );
    assert.deepEqual(await schemaOf(migrated, "index"), [
      "create index search_values_by_value on search_values (field, value, pid, num)",
      "create index search_values_num on search_values (field, num, pid) where num is not null",
    ]);
    // New documents go in by the new key, and a document's rewrite finds its rows.
    await writeDocuments(migrated, corpus().slice(0, 5));
    assert.deepEqual(await valueRows(migrated), expected.rows);
  });

  it("keeps a rebuild under way: its staged values moved over, the new indexes left to its end", async () => {
    const db = await open();
    await writeDocuments(db, corpus());
    const expected = { answers: await answers(db), rows: await valueRows(db) };
    await oldShape(db, (row) => row.pid >= "v-15");
    // The rebuild's start as the old shape recorded it: the staged values' move, the dropped indexes.
    await sql`drop index search_values_pid`.execute(db.kysely);
    await sql`drop index search_values_num`.execute(db.kysely);
    await sql`drop index search_docs_listing`.execute(db.kysely);
    const deferred = [
      `insert into search_values (pid, field, value, num)
        select pid, field, value, num from search_values_rebuild order by field, value, pid`,
      "drop table search_values_rebuild",
      'create index "search_docs_listing" on "search_docs" ("format_type", "obsoleted", "archived", "date_uploaded")',
      'create index "search_values_num" on "search_values" ("field", "num", "pid") where "num" is not null',
      'create index "search_values_pid" on "search_values" ("pid", "field")',
    ];
    await db.kysely
      .insertInto("search_rebuild")
      .values({ name: "full", after_pid: "v-29", started_at: 1, deferred_indexes: JSON.stringify(deferred) })
      .execute();
    await db.close();

    const migrated = await open(db);
    assert.deepEqual(await valueRows(migrated), expected.rows, "the staged values are in search_values");
    assert.deepEqual(
      await schemaOf(migrated, "index"),
      [],
      "search_values' indexes wait for the rebuild's end",
    );
    const state = await searchRepository(migrated).rebuildState();
    assert.equal(state?.deferredIndexes, 3);
    await searchRepository(migrated).finishRebuild();
    assert.equal(await searchRepository(migrated).rebuildState(), undefined);
    assert.equal((await schemaOf(migrated, "index")).length, 2);
    const docsIndexes = await sql<{ name: string }>`select name from sqlite_master
      where type = 'index' and name = 'search_docs_listing'`.execute(migrated.kysely);
    assert.equal(docsIndexes.rows.length, 1);
    assert.deepEqual(await answers(migrated), expected.answers);
  });
});
