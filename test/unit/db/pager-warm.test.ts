/**
 * KeysetPager.warm over a list held in memory, whose reads resolve when the test says: a write that commits
 * while the walk's read is under way (which the read may not have seen) must not leave positions behind that
 * it moved; pages are the spec's start/count slices of the list as it is after the write.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KeysetPager, type KeysetSource } from "../../../src/db/lists/pager.ts";

const compare = (a: number, b: number) => a - b;

/**
 * Sorted numbers as a list. The first keysEvery answers from the list as it was when asked, once `release` is
 * called; later ones at once.
 */
function listOf(values: number[]) {
  const rows = [...values].sort(compare);
  let held: (() => void) | undefined;
  let asked: (() => void) | undefined;
  let holding = true;
  const source: KeysetSource<number, number, number> = {
    cacheKey: "all",
    count: async () => rows.length,
    fetch: async (after, offset, limit) =>
      rows.filter((row) => after === undefined || row > after).slice(offset, offset + limit),
    keysEvery: (after, first, step, hops) => {
      const from = rows.filter((row) => after === undefined || row > after);
      const keys: number[] = [];
      for (let at = first; at <= from.length && keys.length < hops; at += step)
        keys.push(from[at - 1] as number);
      if (!holding) return Promise.resolve(keys);
      holding = false;
      asked?.();
      return new Promise((resolve) => {
        held = () => resolve(keys);
      });
    },
    keyOf: (row) => row,
    includes: () => true,
  };
  return {
    rows,
    source,
    /** Resolves once the next keysEvery was asked (its answer already taken from the list). */
    nextAsk: () =>
      new Promise<void>((resolve) => {
        asked = resolve;
      }),
    release: () => held?.(),
  };
}

describe("pager warm-up", () => {
  it("keeps only positions before a write that ended while its read was under way", async () => {
    const list = listOf(Array.from({ length: 5500 }, (_, i) => i * 10));
    const pager = new KeysetPager<number, number>(compare);
    const asked = list.nextAsk();
    const walk = pager.warm(list.source, new AbortController().signal);
    await asked;
    // A write lands at 25,005 (after position 2500) and commits before the walk's read answers.
    pager.begin();
    list.rows.splice(2501, 0, 25_005);
    pager.end([{ key: 25_005, after: 25_005 }]);
    // The walk's read answers from the list as it was before the write.
    list.release();
    await walk;
    for (const start of [0, 1000, 2000, 2500, 2501, 2502, 3000, 4000, 5000, 5500]) {
      const page = await pager.page(list.source, start, 3);
      assert.deepEqual(page.rows, list.rows.slice(start, start + 3), `page at ${start}`);
    }
  });
});
