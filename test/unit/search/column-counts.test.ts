/**
 * A column's facet counts (src/search/memory/columns.ts) against a plain count of the documents' values, as
 * documents are created, rewritten, emptied (removed) and move in and out of the result (access changes), with
 * the kept counts of a large result followed from query to query (kept-counts.ts) and the column packed anew.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { IndexChangeLog } from "../../../src/db/index-changes.ts";
import { Bitset } from "../../../src/search/memory/bitset.ts";
import { ChangedValues } from "../../../src/search/memory/changed-values.ts";
import { ChunkedReads } from "../../../src/search/memory/chunked-reads.ts";
import { Column } from "../../../src/search/memory/columns.ts";
import { countedDocs } from "../../../src/search/memory/doc-list.ts";
import { DocNumbers } from "../../../src/search/memory/doc-numbers.ts";
import type { SearchEngineDb } from "../../../src/search/store/index.ts";
import { seededRandom } from "../../helpers/data/seeded-random.ts";

const FIELD = "keywords";

/** Documents' values as the database holds them, served as the engine reads them. */
class FakeIndex {
  readonly values = new Map<string, string[]>();
  readonly log = new IndexChangeLog();

  db(): SearchEngineDb {
    const values = this.values;
    const search = {
      async *valuesOfField() {
        const pids: string[] = [];
        const list: string[] = [];
        for (const [pid, each] of values)
          for (const value of each) {
            pids.push(pid);
            list.push(value);
          }
        yield { pids, values: list, nums: undefined };
      },
      valuesOf: async (pids: string[]) =>
        pids.flatMap((pid) =>
          (values.get(pid) ?? []).map((value) => ({ pid, field: FIELD, value, num: null })),
        ),
    };
    return { search, dialect: "sqlite", indexChanges: this.log } as unknown as SearchEngineDb;
  }

  write(pid: string, list: string[]): void {
    this.values.set(pid, list);
    this.log.note([pid]);
  }
}

describe("Column counts", () => {
  it("stay right over creates, rewrites, removals and results moving, kept or counted", async () => {
    const rand = seededRandom(3);
    const index = new FakeIndex();
    // Values shared by many documents, and (every other document) one of its own, as sites are.
    let own = 0;
    const pick = () => [
      ...Array.from({ length: Math.floor(rand() * 4) }, () => `v${Math.floor(rand() * 40)}`),
      ...(rand() < 0.5 ? [`own${own++}`] : []),
    ];
    for (let n = 0; n < 1500; n++) index.values.set(`p${n}`, [...new Set(pick())]);
    const docs = new DocNumbers();
    const db = index.db();
    const tally = { rereads: 0, rechecks: 0, packings: 0 };
    const reads = new ChunkedReads(() => 0);
    const column = new Column(db, new ChangedValues(db, index.log, () => [FIELD]), docs, FIELD, tally, reads);
    await column.upTo(index.log);
    const member = new Map<string, boolean>();
    for (const pid of index.values.keys()) member.set(pid, rand() < 0.8);
    let next = 1500;
    let fewRounds = 0;
    for (let round = 0; round < 12; round++) {
      // Writes: rewrites, removals (no values left), creates; then some documents enter or leave the result.
      for (let i = 0; i < 150; i++) {
        const pid = `p${Math.floor(rand() * next)}`;
        index.write(pid, rand() < 0.2 ? [] : [...new Set(pick())]);
      }
      for (let i = 0; i < 5; i++) {
        const pid = `p${next++}`;
        index.write(pid, [...new Set(pick())]);
        member.set(pid, true);
      }
      for (let i = 0; i < 40; i++)
        member.set(`p${Math.floor(rand() * next)}`, rand() < (round % 3 === 2 ? 0.1 : 0.8));
      await column.upTo(index.log);
      // Every third round a small result (the matching documents counted, the values met listed) instead.
      const small = round % 3 === 1;
      const inResult = new Map([...member].map(([pid, yes]) => [pid, small ? yes && rand() < 0.05 : yes]));
      const matches = new Bitset();
      for (const [pid, yes] of inResult) if (yes) matches.add(docs.numberOf(pid));
      const { counts, order } = column.count(matches, countedDocs(matches, matches.count(), docs.size));
      const got = new Map<string, number>();
      if (order) {
        // Just the values met, in byte order, their counts beside them; the next such round counts from zero.
        const inOrder = [...order].map((ord) => column.values[ord] as string);
        assert.deepEqual(inOrder, [...inOrder].sort(), "values met in byte order");
        for (const [i, ord] of order.entries()) got.set(column.values[ord] as string, counts[i] as number);
        fewRounds++;
      } else
        column.values.forEach((value, ord) => {
          if ((counts[ord] ?? 0) !== 0) got.set(value, counts[ord] as number);
        });
      const expected = new Map<string, number>();
      for (const [pid, yes] of inResult)
        if (yes)
          for (const value of index.values.get(pid) ?? [])
            expected.set(value, (expected.get(value) ?? 0) + 1);
      assert.deepEqual(new Map([...got].sort()), new Map([...expected].sort()), `round ${round}`);
    }
    assert.ok(tally.packings > 0, "the column was packed anew along the way");
    assert.ok(fewRounds >= 2, `rounds that listed the values met: ${fewRounds}`);
  });
});
