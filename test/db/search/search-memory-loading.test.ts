/**
 * A large index has its engine memory read in the background: until that read is done every search is answered
 * by SQL alone (never waiting for it), with the same answers, and writes made meanwhile are in the memory's
 * answers once it serves.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { Database } from "../../../src/db/types.ts";
import { type SearchCaller, searchUncached } from "../../../src/search/answers/search.ts";
import { warmMemory } from "../../../src/search/memory-warm.ts";
import { SolrParams } from "../../../src/search/query/params.ts";
import { parseSearchRequest } from "../../../src/search/query/parse-request.ts";
import { DocumentBuilder } from "../../../src/search/schema/document.ts";
import { openSearchIndex, type SearchIndex } from "../../../src/search/search-index.ts";
import { writeDocuments } from "../../../src/search/store/index-store.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { SMALL_SEARCH_PAGE } from "../../helpers/db/search-index.ts";

const PAGE = SMALL_SEARCH_PAGE;
const caller: SearchCaller = { subjects: new Set(["public"]) };

function doc(n: number, keyword: string) {
  const pid = `l-${String(n).padStart(5, "0")}`;
  const sysmeta = new DocumentBuilder()
    .add("id", pid)
    .add("formatType", n % 4 === 0 ? "DATA" : "METADATA")
    .add("dateUploaded", Date.UTC(2021, 0, 1) + n * 60_000)
    .add("readPermission", "public")
    .add("isPublic", true).fields;
  const science = new DocumentBuilder().add("keywords", keyword).add("site", `s${n % 5}`).fields;
  return { pid, sysmeta, science };
}

async function write(db: Database, from: number, count: number, keyword: string): Promise<void> {
  await writeDocuments(
    db,
    Array.from({ length: count }, (_, i) => doc(from + i, keyword)),
  );
}

async function answer(index: SearchIndex, params: Record<string, string | string[]>) {
  const result = await searchUncached(index, parseSearchRequest(SolrParams.from(params)), caller);
  return { numFound: result.numFound, ids: result.docs.map((d) => d.id), facets: result.facets };
}

forEachDialect((dialect, open) => {
  describe(`search memory read in the background (${dialect})`, () => {
    let db: Database;

    before(async () => {
      db = await open();
      await write(db, 0, 300, "soil");
    });

    it("answers by SQL while the memory is read, then from the memory, the same", async () => {
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let warms = 0;
      const index: SearchIndex = openSearchIndex(db, {
        backgroundFrom: 0,
        warm: async (memory) => {
          warms++;
          await gate;
          await warmMemory(index, memory);
        },
      });
      const sql = openSearchIndex(db, { memoryBudget: 0 });
      assert.deepEqual(await answer(index, PAGE), await answer(sql, PAGE));
      assert.equal(index.status().mode, "loading");
      // Written while the memory is being read: in its answers once it serves.
      await write(db, 100, 200, "ice");
      assert.deepEqual(await answer(index, PAGE), await answer(sql, PAGE));
      assert.equal(warms, 1, "one read at a time");
      release();
      await index.prepare();
      assert.equal(index.status().mode, "memory");
      assert.ok(index.status().rereads > 0);
      await write(db, 0, 50, "water");
      const fromMemory = await answer(index, PAGE);
      assert.deepEqual(fromMemory, await answer(sql, PAGE));
      assert.equal(fromMemory.numFound, 225);
    });

    it("tries again after a failed read, answering by SQL meanwhile", async () => {
      let fail = true;
      const index: SearchIndex = openSearchIndex(db, {
        backgroundFrom: 0,
        warm: async (memory) => {
          if (fail) throw new Error("read failed");
          await warmMemory(index, memory);
        },
      });
      const sql = openSearchIndex(db, { memoryBudget: 0 });
      assert.deepEqual(await answer(index, PAGE), await answer(sql, PAGE));
      await assert.rejects(index.prepare(), /read failed/);
      fail = false;
      await index.prepare();
      assert.equal(index.status().mode, "memory");
      assert.deepEqual(await answer(index, PAGE), await answer(sql, PAGE));
    });

    it("reads fields of text values, of numbers, and of both, as SQL finds them", async () => {
      // site: text for some documents, numbers for others (a number's row keeps it; its value is its text).
      await writeDocuments(
        db,
        [0, 1, 2, 3].map((n) => ({
          ...doc(400 + n, "mixed"),
          science: new DocumentBuilder().add("keywords", "mixed").add("site", n % 2 === 0 ? 7 : "7.5").fields,
        })),
      );
      const queries = [
        { ...PAGE, "facet.field": ["keywords", "site", "dateUploaded"] },
        { ...PAGE, fq: "site:7", sort: "dateUploaded asc" },
        { ...PAGE, fq: 'site:"7.5" OR keywords:soil', sort: "site desc" },
      ];
      const index = openSearchIndex(db);
      const sql = openSearchIndex(db, { memoryBudget: 0 });
      for (const params of queries) assert.deepEqual(await answer(index, params), await answer(sql, params));
      assert.equal(index.status().mode, "memory");
    });

    it("reads a small index's memory in the query that needs it", async () => {
      const index = openSearchIndex(db);
      await answer(index, PAGE);
      assert.equal(index.status().mode, "memory");
      assert.ok(index.status().rereads > 0);
    });
  });
});
