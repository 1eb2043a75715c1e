/** Single-row reads coalesced per turn of the event loop (src/db/objects/coalesced-reads.ts). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { coalescedReads } from "../../../src/db/objects/coalesced-reads.ts";

const table = new Map([
  ["a", "row a"],
  ["b", "row b"],
]);

function counted() {
  const calls: string[][] = [];
  const read = coalescedReads<string>(
    async (key) => {
      calls.push([key]);
      return table.get(key);
    },
    async (keys) => {
      calls.push(keys);
      return new Map(keys.flatMap((key) => (table.has(key) ? [[key, table.get(key) as string]] : [])));
    },
  );
  return { read, calls };
}

describe("coalesced reads", () => {
  it("reads asked in one turn go as one read of distinct keys; each gets its own row", async () => {
    const { read, calls } = counted();
    const rows = await Promise.all(["a", "x", "b", "a"].map(read));
    assert.deepEqual(rows, ["row a", undefined, "row b", "row a"]);
    assert.deepEqual(calls, [["a", "x", "b"]]);
  });

  it("a read alone goes as a single-row read; later turns read again", async () => {
    const { read, calls } = counted();
    assert.equal(await read("b"), "row b");
    assert.equal(await read("b"), "row b");
    assert.deepEqual(calls, [["b"], ["b"]]);
  });

  it("a failed read fails every read of its batch, and the next batch reads afresh", async () => {
    let fail = true;
    const read = coalescedReads<string>(
      async () => "one",
      async (keys) => {
        if (fail) throw new Error("database gone");
        return new Map(keys.map((key) => [key, key]));
      },
    );
    const results = await Promise.allSettled([read("a"), read("b")]);
    assert.deepEqual(
      results.map((r) => r.status),
      ["rejected", "rejected"],
    );
    fail = false;
    assert.deepEqual(await Promise.all([read("a"), read("b")]), ["a", "b"]);
  });
});
