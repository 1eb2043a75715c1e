/** Facet counting from the engine's memory: the documents a count visits, the page of counts. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pageOf } from "../../../src/search/answers/facet-page.ts";
import { Bitset } from "../../../src/search/memory/bitset.ts";
import { countedDocs } from "../../../src/search/memory/doc-list.ts";
import type { FacetFieldRequest } from "../../../src/search/query/request.ts";
import { byteOrder } from "../../../src/search/schema/byte-order.ts";
import { fieldSpec } from "../../../src/search/schema/fields.ts";
import { seededRandom } from "../../helpers/data/seeded-random.ts";

describe("countedDocs", () => {
  it("lists the matching documents, or the others when most match", () => {
    const rand = seededRandom(7);
    for (const [docCount, share] of [
      [1000, 0.1],
      [1000, 0.9],
      [33, 0.5],
      [64, 1],
      [100, 0],
    ] as const) {
      const matches = new Bitset();
      const expected: number[] = [];
      for (let doc = 0; doc < docCount; doc++) if (rand() < share) matches.add(doc);
      const matching = matches.count();
      const others = matching * 2 >= docCount;
      for (let doc = 0; doc < docCount; doc++) if (matches.has(doc) !== others) expected.push(doc);
      const counted = countedDocs(matches, matching, docCount);
      assert.equal(counted.others, others);
      assert.deepEqual([...counted.docs], expected, `${docCount} documents, ${matching} matching`);
    }
  });

  it("counts documents numbered after the matches were found among the others", () => {
    const matches = new Bitset(10);
    for (let doc = 0; doc < 10; doc++) matches.add(doc);
    assert.deepEqual([...countedDocs(matches, 10, 12).docs], [10, 11]);
  });
});

describe("pageOf", () => {
  const facet = (over: Partial<FacetFieldRequest>): FacetFieldRequest => ({
    field: "keywords",
    spec: fieldSpec("keywords") as FacetFieldRequest["spec"],
    limit: -1,
    offset: 0,
    mincount: 1,
    sort: "count",
    prefix: "",
    ...over,
  });

  /** The page as a plain sort would make it. */
  function expected(request: FacetFieldRequest, values: string[], counts: number[]): (string | number)[] {
    const kept = values
      .map((value, at) => ({ value, n: counts[at] as number }))
      .filter((c) => c.n >= request.mincount && c.value.startsWith(request.prefix))
      .sort((a, b) => (request.sort === "count" ? b.n - a.n : 0) || byteOrder(a.value, b.value));
    const end = request.limit < 0 ? kept.length : request.offset + request.limit;
    return kept.slice(request.offset, end).flatMap((c) => [c.value, c.n]);
  }

  it("lists values by count, ties in byte order, over narrow and wide spreads of counts", () => {
    const rand = seededRandom(11);
    for (const [distinct, most] of [
      [500, 3],
      [500, 40],
      [300, 5_000_000],
      [5, 2],
    ] as const) {
      const values = Array.from({ length: distinct }, (_, i) => `v${Math.floor(rand() * 1e6)}-${i}`);
      const counts = values.map(() => (rand() < 0.2 ? 0 : Math.floor(rand() * most)));
      const order = values
        .map((_, at) => at)
        .sort((a, b) => byteOrder(values[a] as string, values[b] as string));
      for (const request of [
        facet({}),
        facet({ mincount: 2, limit: 10, offset: 3 }),
        facet({ sort: "index", limit: 7 }),
        facet({ prefix: "v1" }),
      ]) {
        const page = pageOf(request, { values, counts, nums: values.map(() => null), order });
        assert.deepEqual(page, expected(request, values, counts), `${distinct} values up to ${most}`);
      }
    }
  });

  it("gives the same page from only the values having a count, in byte order", () => {
    const values = ["d", "a", "c", "b", "e"];
    const counts = [2, 0, 2, 0, 5];
    const all = [1, 3, 2, 0, 4];
    const met = [2, 0, 4];
    const nums = values.map(() => null);
    assert.deepEqual(pageOf(facet({}), { values, counts, nums, order: met }), ["e", 5, "c", 2, "d", 2]);
    assert.deepEqual(
      pageOf(facet({}), { values, counts, nums, order: met }),
      pageOf(facet({}), { values, counts, nums, order: all }),
    );
  });
});
