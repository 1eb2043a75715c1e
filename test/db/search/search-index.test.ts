/**
 * The search index on both dialects: the same documents give the same answers on SQLite and PostgreSQL
 * (queries, order, facets, stats); a sysmeta rewrite keeps the science fields; writes are seen at once.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { Database } from "../../../src/db/types.ts";
import { type SearchCaller, search } from "../../../src/search/answers/search.ts";
import { SolrParams } from "../../../src/search/query/params.ts";
import { parseSearchRequest } from "../../../src/search/query/parse-request.ts";
import { DocumentBuilder } from "../../../src/search/schema/document.ts";
import {
  readScience,
  removeDocument,
  writeDocument,
  writeDocuments,
} from "../../../src/search/store/index-store.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { searchIndexOf } from "../../helpers/db/search-index.ts";

const OWNER = "CN=owner";
/** Answers per dialect, compared query by query. */
const ANSWERS = { sqlite: new Map<string, unknown>(), postgres: new Map<string, unknown>() };
const KEYWORDS = ["Soil", "soil", "Water", "Ärger", "carbon flux", "Zebra", "_under", "%percent"];

/** 60 documents with varied fields; every fifth private, every seventh archived, every third obsoleted. */
function corpus() {
  return Array.from({ length: 60 }, (_, n) => {
    const sysmeta = new DocumentBuilder()
      .add("id", `doc-${String(n).padStart(2, "0")}`)
      .add("formatType", n % 4 === 0 ? "DATA" : "METADATA")
      .add("formatId", n % 4 === 0 ? "text/csv" : "eml://ecoinformatics.org/eml-2.1.1")
      .add("dateUploaded", Date.UTC(2020, 0, 1) + ((n * 7919) % 60) * 86_400_000)
      .add("size", (n * 37) % 1000)
      .add("rightsHolder", OWNER)
      .add("readPermission", ...(n % 5 === 0 ? [] : ["public"]))
      .add("isPublic", n % 5 !== 0)
      .add("archived", n % 7 === 3)
      .add("obsoletedBy", n % 3 === 0 ? `doc-${n}-next` : undefined).fields;
    const science = new DocumentBuilder()
      .add("title", `Title ${n % 2 === 0 ? "soil survey" : "water quality"} ${KEYWORDS[n % KEYWORDS.length]}`)
      .add("keywords", KEYWORDS[n % KEYWORDS.length], KEYWORDS[(n * 3) % KEYWORDS.length])
      .add("northBoundCoord", n % 6 === 0 ? undefined : -80 + ((n * 13) % 160))
      .add("beginDate", n % 9 === 0 ? undefined : Date.UTC(1990 + (n % 30), n % 12, 1)).fields;
    return { pid: `doc-${String(n).padStart(2, "0")}`, sysmeta, science };
  });
}

const QUERIES: Record<string, string>[] = [
  { q: "*:*", rows: "100", sort: "id asc" },
  { q: "title:soil", rows: "100", sort: "dateUploaded desc" },
  { q: 'title:"water quality"', rows: "100", sort: "size asc" },
  { q: "keywords:soil OR keywords:Soil", rows: "100", sort: "title asc" },
  { q: "keywords:*r*", rows: "100", sort: "northBoundCoord desc" },
  { q: "keywords:_under OR keywords:%percent", rows: "100" },
  { q: "keywords:Ärger AND -obsoletedBy:*", rows: "100" },
  { q: "northBoundCoord:[0 TO 50} AND formatType:METADATA", rows: "100", sort: "beginDate asc" },
  {
    q: "beginDate:[2000-01-01T00:00:00Z TO *]",
    fq: "size:[100 TO 800]",
    rows: "5",
    start: "2",
    sort: "size desc",
  },
  { q: "formatType:DATA", archived: "archived:*", rows: "100" },
  { q: "id:doc-1*", rows: "100", sort: "id desc" },
  { q: "soil water -zebra", rows: "100" },
  {
    q: "formatType:METADATA",
    rows: "0",
    facet: "true",
    "facet.field": "keywords",
    "facet.sort": "index",
    "facet.limit": "-1",
  },
  { q: "*:*", rows: "0", facet: "true", "facet.field": "title", "facet.limit": "3" },
  { q: "*:*", rows: "0", stats: "true", "stats.field": "size" },
];

forEachDialect((dialect, open) => {
  describe(`search index (${dialect})`, () => {
    let db: Database;
    const run = (params: Record<string, string>, caller: SearchCaller = { subjects: new Set(["public"]) }) =>
      search(searchIndexOf(db), parseSearchRequest(SolrParams.from(params)), caller);
    before(async () => {
      db = await open();
      await writeDocuments(db, corpus());
    });

    for (const params of QUERIES) {
      it(`answers ${JSON.stringify(params)} as SQLite does`, async () => {
        const result = await run(params);
        const answer = {
          numFound: result.numFound,
          ids: result.docs.map((d) => d.id),
          facets: result.facets?.facet_fields,
          stats: result.stats,
        };
        ANSWERS[dialect].set(JSON.stringify(params), answer);
        if (dialect === "postgres") assert.deepEqual(answer, ANSWERS.sqlite.get(JSON.stringify(params)));
      });
    }

    it("filters by subjects: the owner sees the private documents, public does not", async () => {
      const all = await run({ q: "*:*", rows: "0" }, { subjects: new Set([OWNER]) });
      const pub = await run({ q: "*:*", rows: "0" });
      const admin = await run({ q: "*:*", rows: "0" }, "all");
      assert.equal(admin.numFound, all.numFound);
      assert.ok(pub.numFound < all.numFound);
      assert.equal(all.numFound, 60 - 9, "archived hidden (9 of 60)");
    });

    it("a sysmeta rewrite keeps the science fields; removal and rewrites are seen at once", async () => {
      const before = await readScience(db, "doc-01");
      const pub = await run({ q: "id:doc-01", fl: "id,title,isPublic" });
      assert.equal(pub.numFound, 1);
      const sysmeta = new DocumentBuilder()
        .add("id", "doc-01")
        .add("isPublic", false)
        .add("rightsHolder", OWNER).fields;
      await writeDocument(db, "doc-01", sysmeta, before ?? new Map());
      assert.equal(
        (await run({ q: "id:doc-01", fl: "id,title,isPublic" })).numFound,
        0,
        "cache dropped on write",
      );
      const owner = await run({ q: "id:doc-01", fl: "id,title" }, { subjects: new Set([OWNER]) });
      assert.deepEqual(owner.docs, [{ id: "doc-01", title: "Title water quality soil" }]);
      await removeDocument(db, "doc-01");
      assert.equal((await run({ q: "id:doc-01" }, "all")).numFound, 0);
    });
  });
});
