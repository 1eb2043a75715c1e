/**
 * Document numbers held in typed arrays (src/search/memory/doc-numbers.ts): the same number for the same PID
 * across the table's growth, every PID given back exactly (non-ASCII, lone surrogates, long ones), PIDs compared
 * as byte-order.ts compares strings, saved copies and restores.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DocNumbers } from "../../../src/search/memory/doc-numbers.ts";
import { byteOrder } from "../../../src/search/schema/byte-order.ts";
import { seededRandom } from "../../helpers/data/seeded-random.ts";

const ODD = [
  "",
  "a",
  "doi:10.5063/F1ABC",
  "ünïcödé",
  "日本語のPID",
  "emoji \u{1F600}",
  "lone \uD800 high",
  "lone \uDC00 low",
  "\uE000 private",
  "\uFFFF",
  "x".repeat(10_000),
  `${"y".repeat(5000)}\uD83D`,
];

describe("DocNumbers", () => {
  it("numbers each PID once, in the order met, and gives each back exactly", () => {
    const docs = new DocNumbers();
    const pids = [...ODD, ...Array.from({ length: 20_000 }, (_, i) => `urn:uuid:${i}-${(i * 7919) % 1000}`)];
    pids.forEach((pid, n) => {
      assert.equal(docs.numberOf(pid), n);
    });
    assert.equal(docs.size, pids.length);
    pids.forEach((pid, n) => {
      assert.equal(docs.numberOf(pid), n, pid.slice(0, 40));
      assert.equal(docs.pidOf(n), pid);
    });
    assert.equal(docs.size, pids.length);
    assert.ok(docs.bytes > 0);
  });

  it("tells apart PIDs of the same hash bucket and of the same length", () => {
    const docs = new DocNumbers();
    const pids = Array.from({ length: 5000 }, (_, i) => String.fromCharCode(65 + (i % 26), 65 + (i % 31), i));
    for (const pid of pids) docs.numberOf(pid);
    assert.equal(docs.size, new Set(pids).size);
    for (const pid of pids) assert.equal(docs.pidOf(docs.numberOf(pid)), pid);
  });

  it("compares PIDs as byteOrder compares the strings", () => {
    const random = seededRandom(7);
    const alphabet = ["a", "b", "é", "日", "\uD800", "\uDC00", "\uE000", "\uFFFF", "\u{1F600}"];
    const pids = [
      ...ODD,
      ...Array.from({ length: 300 }, () =>
        Array.from({ length: Math.floor(random() * 5) }, () => alphabet[Math.floor(random() * 9)]).join(""),
      ),
    ];
    const docs = new DocNumbers();
    const numbers = pids.map((pid) => docs.numberOf(pid));
    for (let i = 0; i < pids.length; i++)
      for (let j = 0; j < pids.length; j++)
        assert.equal(
          Math.sign(docs.comparePids(numbers[i] as number, numbers[j] as number)),
          Math.sign(byteOrder(pids[i] as string, pids[j] as string)),
        );
  });

  it("saves a copy that later numbers do not change, and restores from it", async () => {
    const docs = new DocNumbers();
    for (const pid of ODD) docs.numberOf(pid);
    const saved = docs.saved();
    docs.numberOf("later");
    assert.equal(saved.length, ODD.length);
    assert.deepEqual(saved.slice(0, saved.length), ODD);
    assert.deepEqual(saved.slice(2, 4), ODD.slice(2, 4));
    const restored = new DocNumbers();
    await restored.restore(saved);
    assert.equal(restored.size, ODD.length);
    ODD.forEach((pid, n) => {
      assert.equal(restored.numberOf(pid), n);
    });
    await assert.rejects(() => restored.restore(["x"]), /restored over/);
    await assert.rejects(() => new DocNumbers().restore(["a", "b", "a"]), /listed twice/);
  });
});
