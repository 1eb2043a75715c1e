/** The parts of the search engine's memory: bitsets, the index change log, byte order of values. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { IndexChangeLog } from "../../../src/db/index-changes.ts";
import { Bitset } from "../../../src/search/memory/bitset.ts";
import { byteOrder } from "../../../src/search/schema/byte-order.ts";
import { seededRandom } from "../../helpers/data/seeded-random.ts";

describe("Bitset", () => {
  it("adds, deletes, counts, intersects and lists documents in order", () => {
    const a = new Bitset();
    const b = new Bitset(10);
    for (const doc of [0, 31, 32, 33, 1000, 4096]) a.add(doc);
    for (const doc of [31, 33, 999, 1000, 70_000]) b.add(doc);
    a.delete(0);
    a.delete(123_456);
    assert.equal(a.count(), 5);
    assert.ok(a.has(4096) && !a.has(0) && !a.has(1_000_000));
    const both = Bitset.intersection([a, b]);
    const listed: number[] = [];
    both.forEach((doc) => {
      listed.push(doc);
    });
    assert.deepEqual(listed, [31, 33, 1000]);
    assert.equal(both.count(), 3);
  });

  it("combines sets of any lengths in place as the sets of numbers they hold", () => {
    const rand = seededRandom(11);
    const randomSet = (): [Bitset, Set<number>] => {
      const span = Math.floor(rand() * 3000);
      const set = new Bitset(Math.floor(rand() * 200));
      const plain = new Set<number>();
      for (let i = 0; i < span / 8; i++) {
        const doc = Math.floor(rand() * span);
        set.add(doc);
        plain.add(doc);
      }
      return [set, plain];
    };
    const listed = (set: Bitset) => {
      const out: number[] = [];
      set.forEach((doc) => {
        out.push(doc);
      });
      return out;
    };
    const sorted = (docs: Iterable<number>) => [...docs].sort((x, y) => x - y);
    for (let round = 0; round < 200; round++) {
      const [a, plainA] = randomSet();
      const [b, plainB] = randomSet();
      const [c, plainC] = randomSet();
      const kind = round % 3;
      if (kind === 0) {
        const common = [...plainA].filter((doc) => plainB.has(doc) && plainC.has(doc));
        assert.deepEqual(listed(a.keepCommon([b, c])), sorted(common));
      } else if (kind === 1) {
        assert.deepEqual(listed(a.addAll([b, c])), sorted(new Set([...plainA, ...plainB, ...plainC])));
      } else {
        const outside = [...plainB].filter((doc) => !plainA.has(doc));
        assert.deepEqual(listed(a.invertWithin(b)), sorted(outside));
      }
      assert.deepEqual(listed(b), sorted(plainB), "the other sets are left as they were");
      assert.equal(a.count(), listed(a).length);
    }
  });
});

describe("IndexChangeLog", () => {
  it("lists the PIDs changed after a given change, or everything when it can't", () => {
    const log = new IndexChangeLog();
    log.note(["a", "b"]);
    const after = log.seq;
    log.note(["c"]);
    log.note(["a"]);
    assert.deepEqual([...(log.changedSince(after) as Set<string>)].sort(), ["a", "c"]);
    assert.deepEqual([...(log.changedSince(log.seq) as Set<string>)], []);
    log.note(undefined);
    assert.equal(log.changedSince(after), "everything");
    assert.deepEqual([...(log.changedSince(log.seq) as Set<string>)], []);
  });

  it("forgets the oldest PIDs beyond its bound and says so", () => {
    const log = new IndexChangeLog();
    const start = log.seq;
    for (let i = 0; i < 60; i++) log.note(Array.from({ length: 1000 }, (_, j) => `p${i}-${j}`));
    assert.equal(log.changedSince(start), "everything");
    assert.equal((log.changedSince(log.seq - 2) as Set<string>).size, 2000);
  });

  it("after a time of not hearing, counts everything as changed", () => {
    const log = new IndexChangeLog();
    log.note(["a"]);
    const seen = log.seq;
    log.trust(false);
    assert.equal(log.trusted, false);
    log.trust(true);
    assert.equal(log.trusted, true);
    assert.equal(log.changedSince(seen), "everything");
  });
});

describe("byteOrder", () => {
  it("orders as UTF-8 bytes do, surrogate pairs above U+E000-FFFF", () => {
    const words = ["b", "a", "", "ab", "Z", "é", "\uffff", "😀", "\ue000", "a\u0000"];
    const expected = [...words].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    assert.deepEqual([...words].sort(byteOrder), expected);
  });
});
