/**
 * The search engine's memory (clause sets, field values, sorting) answers exactly as SQL alone does, before and
 * after documents are rewritten, made private, archived and removed; on PostgreSQL another process's index
 * writes reach it through the change feed.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { Database } from "../../../src/db/types.ts";
import { type SearchCaller, searchUncached } from "../../../src/search/answers/search.ts";
import { runQuery } from "../../../src/search/answers/service.ts";
import { SolrParams } from "../../../src/search/query/params.ts";
import { parseSearchRequest } from "../../../src/search/query/parse-request.ts";
import { DocumentBuilder } from "../../../src/search/schema/document.ts";
import { removeDocument, writeDocument, writeDocuments } from "../../../src/search/store/index-store.ts";
import { searchPageParams, warmSearch } from "../../../src/search/warm.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { searchIndexOf } from "../../helpers/db/search-index.ts";
import { pollUntil } from "../../helpers/time/eventually.ts";

const OWNER = "CN=owner";
const WORDS = ["soil", "Soil", "water", "Ärger", "carbon flux", "zebra", "_under", "%percent", "ice"];
const COLLECTION = "https://purl.dataone.org/collections-1.0.0";
const SITES = ["Alpha", "Beta", "Gamma", undefined];

function doc(n: number, variant = 0) {
  const pid = `m-${String(n).padStart(3, "0")}`;
  const sysmeta = new DocumentBuilder()
    .add("id", pid)
    .add("formatType", n % 4 === 0 ? "DATA" : "METADATA")
    .add(
      "formatId",
      n % 4 === 0 ? "text/csv" : n % 10 === 1 ? COLLECTION : "eml://ecoinformatics.org/eml-2.1.1",
    )
    .add("dateUploaded", Date.UTC(2020, 0, 1) + ((n * 7919 + variant) % 150) * 86_400_000)
    .add("size", (n * 37 + variant) % 500)
    .add("rightsHolder", OWNER)
    .add("readPermission", ...(n % 5 === 0 ? [] : ["public"]))
    .add("isPublic", n % 5 !== 0)
    .add("archived", n % 7 === 3)
    .add("obsoletedBy", n % 3 === 0 ? `${pid}-next` : undefined).fields;
  const science = new DocumentBuilder()
    .add(
      "title",
      `Title ${n % 2 === 0 ? "soil survey" : "water quality"} ${WORDS[(n + variant) % WORDS.length]}`,
    )
    .add(
      "keywords",
      WORDS[(n + variant) % WORDS.length],
      WORDS[(n * 3) % WORDS.length],
      ...(n % 2 === 0 ? [WORDS[(n * 5 + 1) % WORDS.length]] : []),
    )
    .add("site", SITES[n % SITES.length])
    .add("origin", `Author ${n % 13}`, ...(n % 3 === 0 ? ["Author 1"] : []))
    .add("family", n % 4 === 1 ? undefined : `Family ${(n * 7) % 5}`)
    .add("northBoundCoord", n % 6 === 0 ? undefined : -80 + ((n * 13 + variant) % 160))
    .add("beginDate", n % 9 === 0 ? undefined : Date.UTC(1990 + (n % 30), n % 12, 1)).fields;
  return { pid, sysmeta, science };
}

const SEARCH_PAGE = searchPageParams().echo();
const FACETS = {
  facet: "true",
  "facet.field": ["keywords", "site", "formatType", "size"],
  "facet.limit": "-1",
};
const QUERIES: Record<string, string | string[]>[] = [
  { q: "*:*", rows: "20", sort: "dateUploaded desc", ...FACETS },
  { q: "-obsoletedBy:* AND formatType:METADATA", rows: "25", sort: "dateUploaded desc", ...FACETS },
  { q: "keywords:soil", fq: ["-site:Beta", "size:[10 TO 400]"], rows: "7", start: "3", sort: "size asc" },
  { q: "title:water", rows: "50", sort: "northBoundCoord desc,id asc", ...FACETS, "facet.mincount": "2" },
  { q: "*:*", rows: "40", sort: "site asc,dateUploaded asc" },
  { q: "*:*", rows: "30", sort: "keywords desc" },
  { q: "*:*", rows: "200", start: "150", sort: "id desc" },
  { q: "*:*", rows: "0", facet: "true", "facet.query": ["keywords:ice", "site:Alpha OR size:[0 TO 50]"] },
  { q: "formatType:DATA", archived: "archived:*", rows: "100", sort: "beginDate asc" },
  { q: "site:*", rows: "10", "facet.field": "site", facet: "true", "facet.sort": "index" },
  { q: "id:m-01*", rows: "100" },
  // Field values only, over fields whose values the memory holds (faceted above): answered without SQL.
  { q: "keywords:soil AND NOT keywords:Soil", rows: "30", sort: "id asc" },
  { q: "(keywords:ice OR site:Alpha) -keywords:water", fq: "NOT site:Beta", rows: "30", ...FACETS },
  { q: "*:*", fq: 'keywords:"carbon flux" OR keywords:zebra', rows: "10", sort: "size desc" },
  { q: 'rightsHolder:"CN=owner" AND keywords:ice', rows: "10" },
  // Regular expressions, slashes inside terms, clauses joined by the default operator (AND).
  { q: "keywords:/[sS]oil|ice/ -formatId:*ecoinformatics.org/eml*", rows: "30", ...FACETS },
  { q: "title:/wat.*/ keywords:/.*er/", fq: "id:/m-0[0-4].*/", rows: "30", sort: "id asc" },
  { q: "formatId:/eml:..ecoinformatics\\.org\\/eml-2\\.1\\.1/ OR site:Beta", rows: "40", sort: "id asc" },
  // MetacatUI's search page (ten facet fields, facet.limit=-1), as is and with a keyword filter.
  SEARCH_PAGE,
  { ...SEARCH_PAGE, fq: "keywords:ice" },
  { ...SEARCH_PAGE, fq: "-keywords:water", "facet.mincount": "2", "facet.sort": "index" },
  // A value of its own per document (as sites are at scale): a small result lists only the values it has.
  { q: "keywords:ice", rows: "5", facet: "true", "facet.field": ["id", "origin"], "facet.limit": "-1" },
  { q: "site:Alpha", fq: "-keywords:soil", rows: "0", facet: "true", "facet.field": ["id", "keywords"] },
];
const CALLERS: [string, SearchCaller][] = [
  ["public", { subjects: new Set(["public"]) }],
  ["owner", { subjects: new Set([OWNER]) }],
  ["administrator", "all"],
];

/** The parts of an answer both paths must agree on. */
async function answer(db: Database, params: Record<string, string | string[]>, caller: SearchCaller) {
  const result = await searchUncached(searchIndexOf(db), parseSearchRequest(SolrParams.from(params)), caller);
  return { numFound: result.numFound, ids: result.docs.map((d) => d.id), facets: result.facets };
}

/** The same search with the memory set aside (as while the change log is not trusted): SQL alone. */
async function sqlAnswer(db: Database, params: Record<string, string | string[]>, caller: SearchCaller) {
  const log = db.indexChanges;
  log.trusted = false;
  try {
    return await answer(db, params, caller);
  } finally {
    log.trusted = true;
  }
}

forEachDialect((dialect, open) => {
  describe(`search memory (${dialect})`, () => {
    let db: Database;
    const agree = async (label: string) => {
      for (const params of QUERIES) {
        for (const [who, caller] of CALLERS) {
          const fromMemory = await answer(db, params, caller);
          const fromSql = await sqlAnswer(db, params, caller);
          assert.deepEqual(fromMemory, fromSql, `${label}: ${who} ${JSON.stringify(params)}`);
        }
      }
    };

    before(async () => {
      db = await open();
      await writeDocuments(
        db,
        Array.from({ length: 220 }, (_, n) => doc(n)),
      );
    });

    it("answers every query as SQL alone does", async () => {
      const first = await answer(db, QUERIES[0] as Record<string, string>, "all");
      assert.ok(first.numFound > 100 && first.ids.length === 20);
      await agree("fresh");
    });

    it("follows rewrites, access changes, archiving, removals and new documents at once", async () => {
      await agree("warm");
      for (let n = 0; n < 220; n += 11) {
        const next = doc(n, 5);
        if (n % 2 === 0) next.sysmeta.set("isPublic", [n % 4 === 0]);
        if (n % 3 === 0) next.sysmeta.set("archived", [true]);
        await writeDocument(db, next.pid, next.sysmeta, next.science);
      }
      for (let n = 1; n < 220; n += 17) await removeDocument(db, doc(n).pid);
      await writeDocuments(db, [doc(502), doc(503, 2)]);
      await agree("after changes");
      const found = await answer(db, { q: "id:m-502 OR id:m-001" }, "all");
      assert.deepEqual(found.ids, ["m-502"], "a new document is found, a removed one is not");
    });

    it("packs many rewritten documents anew and still agrees", async () => {
      await agree("before a large write");
      await writeDocuments(
        db,
        Array.from({ length: 1100 }, (_, i) => doc(1000 + i, i % 3)),
      );
      await agree("after 1,100 new documents");
    });

    it("searches running while documents are written leave the memory right", async () => {
      const writes = (async () => {
        for (let n = 0; n < 60; n++) {
          const next = doc((n * 7) % 220, n);
          await writeDocument(db, next.pid, next.sysmeta, next.science);
        }
      })();
      const searches = Promise.all(
        [0, 1, 2].map(async (lane) => {
          for (let i = 0; i < 20; i++) {
            const params = QUERIES[(i + lane * 5) % QUERIES.length] as Record<string, string | string[]>;
            await answer(db, params, (CALLERS[lane] as [string, SearchCaller])[1]);
          }
        }),
      );
      await Promise.all([writes, searches]);
      await agree("after concurrent writes and searches");
    });

    it("answers queries running at once each with its own counts", async () => {
      // The memory counts and pages in arrays kept between queries (scratch-ints.ts): queries interleaved at
      // every turn of the event loop must not see each other's.
      const ownValues = Array.from({ length: 10 }, (_, d) => ({
        q: `id:m-0${d}*`,
        rows: "0",
        facet: "true",
        "facet.field": ["id", "site"],
        "facet.limit": "-1",
      }));
      const queries = [...QUERIES, ...ownValues, ...ownValues.reverse()];
      const expected: Awaited<ReturnType<typeof sqlAnswer>>[] = [];
      for (const params of queries) expected.push(await sqlAnswer(db, params, "all"));
      const got = await Promise.all(queries.map((params) => answer(db, params, "all")));
      for (const [i, one] of got.entries()) assert.deepEqual(one, expected[i], JSON.stringify(queries[i]));
    });

    it("serves a repeated request's answer from the answer cache until the index changes", async () => {
      const index = searchIndexOf(db);
      const params = SolrParams.from({ q: "keywords:ice", rows: "5", sort: "id asc", wt: "json" });
      const body = async () => {
        const answer = await runQuery(index, parseSearchRequest(params), "all");
        return JSON.parse(answer.body.toString("utf8")) as {
          responseHeader: { QTime: number };
          response: { numFound: number };
        };
      };
      const first = await body();
      const again = await body();
      assert.ok(Number.isInteger(again.responseHeader.QTime) && again.responseHeader.QTime >= 0);
      assert.deepEqual(
        { ...again, responseHeader: { ...again.responseHeader, QTime: 0 } },
        {
          ...first,
          responseHeader: { ...first.responseHeader, QTime: 0 },
        },
      );
      const added = doc(900);
      added.science.set("keywords", ["ice"]);
      await writeDocument(db, added.pid, added.sysmeta, added.science);
      assert.equal(
        (await body()).response.numFound,
        first.response.numFound + 1,
        "a write retires the answer",
      );
      const xml = await runQuery(
        index,
        parseSearchRequest(SolrParams.from({ q: "keywords:ice", rows: "1" })),
        "all",
      );
      assert.match(xml.body.toString("utf8"), /<int name="QTime">\d+<\/int>/);
      // The answer is its UTF-8 bytes, characters beyond Latin-1 and ASCII included.
      const named = doc(901);
      named.science.set("keywords", ["ice", "Ærø 氷河"]);
      await writeDocument(db, named.pid, named.sysmeta, named.science);
      const faceted = await runQuery(
        index,
        parseSearchRequest(
          SolrParams.from({ q: `id:${named.pid}`, facet: "true", "facet.field": "keywords", wt: "json" }),
        ),
        "all",
      );
      const text = faceted.body.toString("utf8");
      assert.equal(faceted.body.length, Buffer.byteLength(text));
      assert.deepEqual(JSON.parse(text).facet_counts.facet_fields.keywords, ["ice", 1, "Ærø 氷河", 1]);
    });

    it("warms up on the search-page query only when the index is large enough", async () => {
      const fresh = await open();
      await writeDocuments(fresh, [doc(1), doc(2), doc(3)]);
      const fail = (error: unknown) => assert.fail(String(error));
      await warmSearch(searchIndexOf(fresh), fail, 4);
      assert.equal(searchIndexOf(fresh).memory()?.holds("keywords"), false);
      await warmSearch(searchIndexOf(fresh), fail, 3);
      assert.equal(
        searchIndexOf(fresh).memory()?.holds("keywords"),
        true,
        "the facet fields' values are held",
      );
    });

    it("reads everything again when the log cannot list what changed", async () => {
      await writeDocument(db, "m-002", doc(2, 7).sysmeta, doc(2, 7).science);
      db.indexChanges.note(undefined);
      await agree("after an unlisted change");
    });

    if (dialect === "postgres") {
      it("hears another process's index writes through the change feed", async () => {
        const other = await open(db);
        const query = { q: "keywords:freshword", rows: "10" };
        assert.equal((await answer(db, query, "all")).numFound, 0);
        const changed = doc(4, 1);
        changed.science.set("keywords", ["freshword"]);
        await writeDocument(other, changed.pid, changed.sysmeta, changed.science);
        // "searchable ... within 1 s"
        await pollUntil(
          async () => (await answer(db, query, "all")).numFound,
          (n) => n === 1,
          1000,
        );
        await agree("after another process wrote");
      });
    }
  });
});
