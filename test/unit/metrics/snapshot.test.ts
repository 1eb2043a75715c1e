/** The snapshot cache: one database read per period however many scrapes, shared by callers arriving together. */
import assert from "node:assert/strict";
import { it } from "node:test";
import type { Database, NodeCounts } from "../../../src/db/types.ts";
import { SnapshotCache } from "../../../src/metrics/snapshot.ts";
import { roundUp } from "../../../src/metrics/svg-plot.ts";

function countingDatabase(): { db: Database; reads: () => number } {
  let reads = 0;
  const counts: NodeCounts = {
    async stored() {
      reads++;
      return { objects: reads, bytes: 0, replicaObjects: 0, replicaBytes: 0, contentBytes: 0 };
    },
    tasks: async () => [],
    harvestPositions: async () => [],
    replicaStates: async () => new Map(),
    unindexed: async () => 0,
  };
  const uploads = { totals: async () => ({ uploads: 0, bytes: 0 }) };
  return { db: { counts, uploads } as unknown as Database, reads: () => reads };
}

it("reads the database once per period, sharing a read under way", async () => {
  let now = 1_000_000;
  const { db, reads } = countingDatabase();
  const cache = new SnapshotCache(db, "mn", 10_000, () => now);
  const [a, b] = await Promise.all([cache.get(), cache.get()]);
  assert.equal(reads(), 1);
  assert.equal(a, b);
  now += 9_999;
  assert.equal((await cache.get()).stored.objects, 1);
  now += 1;
  assert.equal((await cache.get()).stored.objects, 2);
  assert.equal(reads(), 2);
});

it("rounds a plot's maximum up to 1, 2 or 5 times a power of ten", () => {
  assert.deepEqual(
    [0, 0.3, 1, 1.5, 3, 7, 10, 11, 480, 5001].map(roundUp),
    [1, 1, 1, 2, 5, 10, 10, 20, 500, 10_000],
  );
});
