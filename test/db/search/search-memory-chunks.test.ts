/**
 * The engine's memory reads structures whole in chunks (keyset pages) and checks its budget after each: read
 * in chunks of a few rows, the documents and values are those of a read in one chunk, and the memory answers
 * as SQL alone does; a read that would go over the budget stops part way, and SQL answers, the same.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { Database } from "../../../src/db/types.ts";
import { type SearchCaller, searchUncached } from "../../../src/search/answers/search.ts";
import { SolrParams } from "../../../src/search/query/params.ts";
import { parseSearchRequest } from "../../../src/search/query/parse-request.ts";
import { DocumentBuilder } from "../../../src/search/schema/document.ts";
import { openSearchIndex, type SearchIndex } from "../../../src/search/search-index.ts";
import { accessCondition, notArchived, TRUE } from "../../../src/search/store/conditions.ts";
import type { FieldChunk } from "../../../src/search/store/field-reads.ts";
import { searchRepository } from "../../../src/search/store/index.ts";
import { writeDocuments } from "../../../src/search/store/index-store.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { SMALL_SEARCH_PAGE } from "../../helpers/db/search-index.ts";

const DOCS = 1500;
const caller: SearchCaller = { subjects: new Set(["public"]) };
const inQuery = { backgroundFrom: Number.POSITIVE_INFINITY };
const QUERIES: Record<string, string | string[]>[] = [
  SMALL_SEARCH_PAGE,
  { ...SMALL_SEARCH_PAGE, q: "keywords:water", sort: "size asc", "facet.field": ["keywords", "size"] },
  { q: "site:site-2", rows: "7", sort: "id desc" },
];

function doc(n: number) {
  const pid = `c-${String(n).padStart(5, "0")}`;
  const sysmeta = new DocumentBuilder()
    .add("id", pid)
    .add("formatType", n % 4 === 0 ? "DATA" : "METADATA")
    .add("dateUploaded", Date.UTC(2022, 0, 1) + ((n * 7919) % 900) * 3_600_000)
    .add("size", (n * 37) % 300)
    .add("readPermission", ...(n % 6 === 0 ? [] : ["public"]))
    .add("isPublic", n % 6 !== 0)
    .add("archived", n % 9 === 4)
    .add("obsoletedBy", n % 10 === 0 ? `${pid}-next` : undefined).fields;
  const science = new DocumentBuilder()
    .add("keywords", n % 3 === 0 ? "water" : "soil", `k${n % 40}`, n % 7 === 0 ? "ünïcödé ✓" : undefined)
    .add("site", n % 5 === 0 ? undefined : `site-${n % 3}`).fields;
  return { pid, sysmeta, science };
}

async function answers(index: SearchIndex) {
  const out = [];
  for (const params of QUERIES) {
    const result = await searchUncached(index, parseSearchRequest(SolrParams.from(params)), caller);
    out.push({ numFound: result.numFound, ids: result.docs.map((d) => d.id), facets: result.facets });
  }
  return out;
}

/** Every chunk's arrays, one after another. */
async function joined(chunks: AsyncIterable<FieldChunk>) {
  const out = { pids: [] as string[], values: [] as string[], nums: [] as (number | null)[] };
  let sizes = 0;
  for await (const chunk of chunks) {
    sizes++;
    out.pids.push(...chunk.pids);
    out.values.push(...chunk.values);
    out.nums.push(...(chunk.nums ?? chunk.pids.map(() => null)));
  }
  return { ...out, chunks: sizes };
}

forEachDialect((dialect, open) => {
  describe(`search memory read in chunks (${dialect})`, () => {
    let db: Database;

    before(async () => {
      db = await open();
      for (let start = 0; start < DOCS; start += 500) {
        await writeDocuments(
          db,
          Array.from({ length: 500 }, (_, i) => doc(start + i)),
        );
      }
    });

    it("reads a condition's documents in chunks: the PIDs of a read in one chunk", async () => {
      for (const condition of [TRUE, notArchived(), accessCondition(dialect, ["public"])]) {
        const whole: string[][] = [];
        for await (const pids of searchRepository(db).matchingPidChunks(condition)) whole.push(pids);
        assert.equal(whole.length, 1);
        const chunked: string[][] = [];
        for await (const pids of searchRepository(db).matchingPidChunks(condition, 7)) chunked.push(pids);
        assert.ok(chunked.every((pids) => pids.length <= 7));
        assert.deepEqual(chunked.flat().sort(), [...(whole[0] ?? [])].sort());
        assert.equal(new Set(chunked.flat()).size, chunked.flat().length, "no PID twice");
        assert.ok((whole[0]?.length ?? 0) > 1000);
      }
    });

    it("reads a field's values in chunks: the rows of a read in one chunk", async () => {
      for (const field of ["keywords", "size", "dateUploaded", "site"]) {
        const whole = await joined(searchRepository(db).valuesOfField(field, String));
        const chunked = await joined(searchRepository(db).valuesOfField(field, String, 11));
        assert.ok(whole.pids.length > 1000 || field !== "keywords", field);
        assert.equal(whole.chunks, Math.min(1, whole.pids.length), field);
        assert.equal(chunked.chunks, Math.ceil(whole.pids.length / 11), field);
        assert.deepEqual({ ...chunked, chunks: 0 }, { ...whole, chunks: 0 }, field);
      }
    });

    it("answers from a memory read in chunks of a few rows as from one read in one chunk, and as SQL", async () => {
      const chunked = openSearchIndex(db, { ...inQuery, readChunk: 13 });
      const whole = openSearchIndex(db, inQuery);
      const fromChunks = await answers(chunked);
      assert.deepEqual(fromChunks, await answers(whole));
      assert.equal(chunked.status().mode, "memory");
      assert.equal(chunked.status().bytes, whole.status().bytes, "the same structures held");
      db.indexChanges.trusted = false;
      const fromSql = await answers(whole);
      db.indexChanges.trusted = true;
      assert.deepEqual(fromChunks, fromSql);
      chunked.close();
      whole.close();
    });

    it("stops a read that would go over the budget part way, and answers by SQL, the same", async () => {
      const roomy = openSearchIndex(db, inQuery);
      const expected = await answers(roomy);
      // Expected to fit (a byte a document before reading); the document numbers alone are over once read.
      const tight = { ...inQuery, memoryBudget: 40_000, expectedBytesPerDoc: 1, readChunk: 50 };
      const index = openSearchIndex(db, tight);
      assert.deepEqual(await answers(index), expected);
      const status = index.status();
      assert.equal(status.mode, "sql");
      assert.equal(status.bytes, 0, "nothing held");
      assert.equal(status.rereads, 0, "no structure was read whole: the first read stopped part way");
      // In the background (a large index), the read stops the same way; the preparation is not a failure.
      const background = openSearchIndex(db, { ...tight, backgroundFrom: 0 });
      await background.prepare();
      assert.equal(background.status().mode, "sql");
      assert.deepEqual(await answers(background), expected);
      roomy.close();
      index.close();
      background.close();
    });
  });
});
