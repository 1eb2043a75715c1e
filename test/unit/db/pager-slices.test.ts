/**
 * KeysetPager over lists held in memory: a slice (a range of the sort key) is paged from its parent's remembered
 * keys without counting or scanning itself, and another process's write drops only the keys at or after it.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KeysetPager, type KeysetSource } from "../../../src/db/lists/pager.ts";

const compare = (a: number, b: number) => a - b;

/** Sorted numbers as a list, recording where each keysEvery started (`after`) and how many keys it read. */
function listOf(rows: number[]) {
  const reads: { after: number | undefined; keys: number }[] = [];
  const after = (key: number | undefined) => rows.filter((row) => key === undefined || row > key);
  const source: KeysetSource<number, number, number> = {
    cacheKey: "all",
    countIsKept: true,
    count: async () => rows.length,
    fetch: async (key, offset, limit) => after(key).slice(offset, offset + limit),
    keysEvery: async (key, first, step, hops) => {
      const from = after(key);
      const keys: number[] = [];
      for (let at = first; at <= from.length && keys.length < hops; at += step)
        keys.push(from[at - 1] as number);
      reads.push({ after: key, keys: Math.min(from.length, first + step * (hops - 1)) });
      return keys;
    },
    keyOf: (row) => row,
    includes: () => true,
  };
  return { rows, source, reads };
}

function window(parent: KeysetSource<number, number, number>, from?: number, to?: number) {
  const source: KeysetSource<number, number, number> = {
    ...parent,
    cacheKey: `${from}-${to}`,
    countIsKept: false,
    count: () => Promise.reject(new Error("a slice is not counted")),
    keysEvery: () => Promise.reject(new Error("a slice is not walked")),
    slice: { parent, ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) },
  };
  return source;
}

describe("pager slices", () => {
  it("page a range of the sort key from the parent's keys: totals and rows exact, reads bounded", async () => {
    const list = listOf(Array.from({ length: 250_000 }, (_, i) => i * 2));
    const pager = new KeysetPager<number, number>(compare);
    await pager.warm(list.source, new AbortController().signal);
    for (const [from, to] of [
      [1001, 300_001],
      [0, 2],
      [123_457, undefined],
      [undefined, 400_000],
      [499_998, 600_000],
      [7, 7],
    ] as const) {
      const truth = list.rows.filter(
        (row) => (from === undefined || row >= from) && (to === undefined || row < to),
      );
      for (const start of [0, 1, 999, 1000, 75_000, Math.max(0, truth.length - 1)]) {
        list.reads.length = 0;
        const page = await pager.page(window(list.source, from, to), start, 3);
        assert.equal(page.total, truth.length);
        assert.deepEqual(page.rows, truth.slice(start, start + 3));
        // Each end is found within a thousand rows of a remembered key.
        for (const read of list.reads) assert.ok(read.keys <= 2000, `read ${read.keys} keys`);
      }
    }
  });

  it("drops only the keys at or after another process's write", async () => {
    const list = listOf(Array.from({ length: 50_000 }, (_, i) => i * 10));
    const pager = new KeysetPager<number, number>(compare);
    await pager.warm(list.source, new AbortController().signal);
    // Another process adds 255,005 (after position 25,500) and appends 600,000.
    list.rows.splice(25_501, 0, 255_005);
    list.rows.push(600_000);
    pager.writtenElsewhere(255_005);
    list.reads.length = 0;
    const early = await pager.page(list.source, 20_000, 2);
    assert.deepEqual(early, { total: 50_002, rows: [200_000, 200_010] });
    assert.equal(list.reads.length, 0);
    const late = await pager.page(list.source, 40_000, 2);
    assert.deepEqual(late.rows, [399_990, 400_000]);
    // The walk to 40,000 started from the last key kept before the write, not from the start.
    assert.ok(
      list.reads.every((read) => read.after !== undefined && read.after >= 249_990),
      JSON.stringify(list.reads),
    );
  });

  it("walks a large list in the background after its first page, and a slice's parent when its keys fall short", async () => {
    const list = listOf(Array.from({ length: 250_000 }, (_, i) => i * 2));
    const pager = new KeysetPager<number, number>(compare, 10_000);
    const slice = window(list.source, 20_001, 50_001);
    // Cold: the slice is counted as a list of its own (its count fails here), and the parent is walked.
    await assert.rejects(pager.page(slice, 0, 1), /not counted/);
    await pager.walkEnded();
    const page = await pager.page(slice, 14_000, 2);
    assert.deepEqual(page, { total: 15_000, rows: [48_002, 48_004] });
    list.reads.length = 0;
    assert.deepEqual((await pager.page(list.source, 249_998, 2)).rows, [499_996, 499_998]);
    assert.equal(list.reads.length, 0);
    await pager.stopWalks();
  });
});
