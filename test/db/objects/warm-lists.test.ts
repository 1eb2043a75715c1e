/**
 * The background walk of the unfiltered log and object list (Database.warmLists): pages read after it, or while
 * writes land before and after the walk's position, are the spec's start/count slices exactly. The truth is the
 * same order under a filter that matches every row and is no date window (its own, cold list).
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { bulkLoadObjects } from "../../../src/db/index.ts";
import type { Database, HarvestedLogEntry, NewLogEntry } from "../../../src/db/types.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

const ENTRIES = 6500;
const OBJECTS = 3500;
/** Every entry (each identifier starts with "w-") and every object (none is a replica). */
const ALL_ENTRIES = { idFilter: "w-" };
const ALL_OBJECTS = { replicaStatus: false };
const FIRST = Date.UTC(2026, 0, 1);

function entry(i: number): NewLogEntry {
  return {
    identifier: `w-${i % 100}`,
    event: "read",
    ipAddress: "127.0.0.1",
    userAgent: "test",
    subject: "CN=s",
    dateLogged: new Date(FIRST + i * 1000),
    nodeIdentifier: "urn:node:TEST",
  };
}

/** Entries dated among the old ones (a CN aggregating another node's log): they move later positions. */
function harvested(tag: string, at: number): HarvestedLogEntry[] {
  return [0, 1, 2].map((k) => ({
    ...entry(at + k),
    sourceNode: "urn:node:OTHER",
    sourceEntryId: `${tag}-${k}`,
  }));
}

async function assertSamePages(db: Database, starts: number[]): Promise<void> {
  for (const start of starts) {
    const log = await db.events.list({}, start, 7);
    const truth = await db.events.list(ALL_ENTRIES, start, 7);
    assert.equal(log.total, truth.total);
    assert.deepEqual(log.items, truth.items, `log page at ${start}`);
    const list = await db.objects.list({}, start, 7);
    const objects = await db.objects.list(ALL_OBJECTS, start, 7);
    assert.equal(list.total, objects.total);
    assert.deepEqual(list.items, objects.items, `object page at ${start}`);
  }
}

forEachDialect((_name, open) => {
  describe("list warm-up", () => {
    let db: Database;
    before(async () => {
      db = await open();
      for (let i = 0; i < ENTRIES; i++) db.events.append(entry(i));
      await db.events.flush();
      const objects = Array.from({ length: OBJECTS }, (_, i) => storedObject(`w-${i}`, {}, i));
      await bulkLoadObjects(db, objects);
    });

    it("pages exactly after the walk, and while entries and objects land before and after its position", async () => {
      await db.warmLists(new AbortController().signal, 0);
      await assertSamePages(db, [0, 999, 1000, 1001, 2500, 3000, 3493, 5999, 6000, 6493]);

      // A second walk, with writes landing all over the lists while it runs.
      const walk = db.warmLists(new AbortController().signal, 0);
      const writes = (async () => {
        await db.events.addHarvested(harvested("early", 10));
        db.events.append(entry(ENTRIES + 5));
        await db.events.flush();
        await db.events.addHarvested(harvested("middle", 4000));
        await db.objects.insert(storedObject("w-early", {}, -5000));
        await db.objects.remove("w-2000");
      })();
      await Promise.all([walk, writes]);
      await assertSamePages(db, [0, 11, 999, 1000, 1003, 3000, 3999, 4000, 4002, 6000, 6500, 6505]);

      // An aborted walk stops and leaves the pages exact.
      const aborted = new AbortController();
      aborted.abort();
      await db.warmLists(aborted.signal, 0);
      await assertSamePages(db, [1000, 6000]);
    });
  });
});
