/**
 * The engine's memory after a burst of writes (rechecked for what changed, never read whole again) and under its
 * budget (over it, searches are answered by SQL alone, with the same answers).
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { Database } from "../../../src/db/types.ts";
import { type SearchCaller, searchUncached } from "../../../src/search/answers/search.ts";
import { SolrParams } from "../../../src/search/query/params.ts";
import { parseSearchRequest } from "../../../src/search/query/parse-request.ts";
import { DocumentBuilder } from "../../../src/search/schema/document.ts";
import { openSearchIndex, type SearchIndex } from "../../../src/search/search-index.ts";
import { writeDocuments } from "../../../src/search/store/index-store.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { SMALL_SEARCH_PAGE } from "../../helpers/db/search-index.ts";

const SITES = ["Alpha", "Beta", "Gamma"];
const PAGE = SMALL_SEARCH_PAGE;

function doc(n: number, keyword = "soil", minutesLater = 0) {
  const pid = `b-${String(n).padStart(6, "0")}`;
  const sysmeta = new DocumentBuilder()
    .add("id", pid)
    .add("formatType", n % 4 === 0 ? "DATA" : "METADATA")
    .add("dateUploaded", Date.UTC(2020, 0, 1) + (n + minutesLater) * 60_000)
    .add("readPermission", "public")
    .add("isPublic", true)
    .add("obsoletedBy", n % 10 === 0 ? `${pid}-next` : undefined).fields;
  const science = new DocumentBuilder()
    .add("keywords", keyword, n % 3 === 0 ? "water" : undefined)
    .add("site", SITES[n % SITES.length]).fields;
  return { pid, sysmeta, science };
}

async function write(db: Database, from: number, count: number, keyword?: string): Promise<void> {
  for (let start = from; start < from + count; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, from + count - start) }, (_, i) =>
      doc(start + i, keyword),
    );
    await writeDocuments(db, batch);
  }
}

async function answer(index: SearchIndex, params: Record<string, string | string[]>, caller: SearchCaller) {
  const result = await searchUncached(index, parseSearchRequest(SolrParams.from(params)), caller);
  return { numFound: result.numFound, ids: result.docs.map((d) => d.id), facets: result.facets };
}

/** The memory read by the query needing it, as on a small index (background reads: search-memory-loading.test.ts). */
const inQuery = { backgroundFrom: Number.POSITIVE_INFINITY };

forEachDialect((dialect, open) => {
  describe(`search memory, bursts and budget (${dialect})`, () => {
    let db: Database;
    const publicCaller: SearchCaller = { subjects: new Set(["public"]) };

    before(async () => {
      db = await open();
      await write(db, 0, 2000);
    });

    it("follows 20,000 index changes by rechecking them, without reading everything again", async () => {
      const index = openSearchIndex(db, inQuery);
      const first = await answer(index, PAGE, publicCaller);
      assert.equal(first.numFound, 1400);
      const read = index.status();
      assert.ok(read.rereads > 0 && read.mode === "memory");
      // 2,000 rewritten (keyword "ice"), 18,000 new.
      await write(db, 0, 20_000, "ice");
      const after = await answer(index, PAGE, publicCaller);
      const status = index.status();
      assert.equal(status.rereads, read.rereads, "nothing read whole again");
      assert.ok(status.rechecks > read.rechecks);
      assert.equal(after.numFound, 14_000);
      assert.deepEqual(after.ids[0], "b-019999");
      const keywords = after.facets?.facet_fields.keywords;
      assert.deepEqual(keywords, ["ice", 14_000, "water", 4667]);
      db.indexChanges.trusted = false;
      const fromSql = await answer(index, PAGE, publicCaller);
      db.indexChanges.trusted = true;
      assert.deepEqual(after, fromSql, "the same answer as SQL alone");
    });

    it("keeps the page order through a packing: rewritten documents merged into the kept order", async () => {
      const index = openSearchIndex(db, inQuery);
      const pages = [
        { ...PAGE, rows: "30" },
        { ...PAGE, sort: "dateUploaded asc", rows: "30", start: "200" },
      ];
      for (const params of pages) await answer(index, params, publicCaller);
      // Every third of 3,000 documents moved in time (some past the newest), more than the patches kept.
      const moved = Array.from({ length: 3000 }, (_, i) => i * 3);
      for (let i = 0; i < moved.length; i += 1000) {
        const batch = moved.slice(i, i + 1000).map((n) => doc(n, "moss", n % 2 === 0 ? 40_000 : -5));
        await writeDocuments(db, batch);
      }
      for (const params of pages) {
        const fromMemory = await answer(index, params, publicCaller);
        db.indexChanges.trusted = false;
        const fromSql = await answer(index, params, publicCaller);
        db.indexChanges.trusted = true;
        assert.deepEqual(fromMemory, fromSql);
      }
      assert.equal(index.status().mode, "memory");
    });

    it("rechecks a burst of writes in the background, leaving the next query nothing to recheck", async () => {
      const index = openSearchIndex(db, inQuery);
      await answer(index, PAGE, publicCaller);
      for (let i = 0; i < 4; i++) await write(db, i * 700, 700, `burst${i}`);
      await index.settled();
      const before = index.status();
      const after = await answer(index, PAGE, publicCaller);
      assert.equal(index.status().rechecks, before.rechecks, "rechecked before the query came");
      assert.equal(index.status().rereads, before.rereads);
      db.indexChanges.trusted = false;
      assert.deepEqual(after, await answer(index, PAGE, publicCaller));
      db.indexChanges.trusted = true;
      index.close();
    });

    it("answers by SQL alone, the same, when the memory would not fit its budget", async () => {
      const roomy = openSearchIndex(db, inQuery);
      const tiny = openSearchIndex(db, { ...inQuery, memoryBudget: 1000 });
      const queries = [PAGE, { ...PAGE, q: "keywords:water", sort: "id asc" }, { q: "site:Beta", rows: "3" }];
      for (const params of queries) {
        assert.deepEqual(await answer(tiny, params, publicCaller), await answer(roomy, params, publicCaller));
      }
      assert.equal(tiny.status().mode, "sql");
      assert.equal(tiny.status().bytes, 0, "nothing held");
      assert.equal(tiny.memory(), undefined);
      const held = roomy.status();
      assert.equal(held.mode, "memory");
      assert.ok(held.bytes > 0 && held.bytes < held.budget);
    });

    it("lets go of its memory once reading it went over the budget", async () => {
      let now = 0;
      // Expected to fit (a byte a document before reading), found not to once read.
      const index = openSearchIndex(db, {
        ...inQuery,
        memoryBudget: 200_000,
        expectedBytesPerDoc: 1,
        now: () => now,
      });
      const roomy = openSearchIndex(db, inQuery);
      const many = { ...PAGE, "facet.field": ["keywords", "site", "id", "dateUploaded", "formatType"] };
      const fromMemory = await answer(roomy, many, publicCaller);
      assert.deepEqual(await answer(index, many, publicCaller), fromMemory);
      const status = index.status();
      assert.equal(status.mode, "sql", `over budget: ${roomy.status().bytes} bytes held by the roomy index`);
      assert.deepEqual(await answer(index, many, publicCaller), fromMemory);
      now += 120_000;
      await answer(index, { q: "site:Beta", rows: "3" }, publicCaller);
      assert.equal(index.status().mode, "sql", "still over at the bytes a document was found to cost");
      const roomier = openSearchIndex(db, {
        ...inQuery,
        memoryBudget: 2 ** 30,
        expectedBytesPerDoc: 1,
        now: () => now,
      });
      assert.deepEqual(await answer(roomier, many, publicCaller), fromMemory);
      assert.equal(roomier.status().mode, "memory");
    });
  });
});
