/** Arrays kept between queries (src/search/answers/scratch-ints.ts): reused, grown with their contents, bounded. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ScratchInts } from "../../../src/search/answers/scratch-ints.ts";

describe("ScratchInts", () => {
  it("hands out the same array while it is long enough, and counts what it holds", () => {
    const before = ScratchInts.held;
    const scratch = new ScratchInts();
    const first = scratch.take(100);
    assert.ok(first.length >= 100);
    assert.equal(scratch.take(50), first, "a shorter request reuses the array");
    assert.equal(ScratchInts.held - before, first.byteLength);
    const longer = scratch.take(first.length + 1);
    assert.notEqual(longer, first);
    assert.equal(scratch.take(10), longer, "the longer array is the one kept");
    assert.equal(ScratchInts.held - before, longer.byteLength, "the shorter one is no longer counted");
  });

  it("grows an array in use with the elements used so far", () => {
    const scratch = new ScratchInts();
    let list = scratch.take(4);
    for (let i = 0; i < list.length; i++) list[i] = i * 3;
    const used = list.length;
    list = scratch.grow(list, used, used * 2);
    assert.ok(list.length >= used * 2);
    assert.deepEqual(
      [...list.subarray(0, used)],
      Array.from({ length: used }, (_, i) => i * 3),
    );
    assert.equal(scratch.take(1), list, "the grown array is kept for the next use");
  });

  it("makes an array past the kept length for one use and keeps the old one", () => {
    const before = ScratchInts.held;
    const scratch = new ScratchInts();
    const kept = scratch.take(1000);
    const huge = scratch.take(2 ** 21);
    assert.equal(huge.length, 2 ** 21);
    assert.equal(scratch.take(1000), kept);
    assert.equal(ScratchInts.held - before, kept.byteLength);
  });
});
