/**
 * Indexing coalesced across writes (src/search/indexing/index-batches.ts), on both databases: the creates that commit in the
 * same turn of the event loop, or while an index write runs, are indexed in one transaction; each caller resolves
 * only when its own
 * objects are indexed; when that shared transaction fails, each object is indexed on its own, so that one object
 * that cannot be indexed costs the others nothing (its document is dropped for the start-up catch-up).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadFormatRegistry } from "../../../src/context/formats.ts";
import type { Database, StoredObject } from "../../../src/db/types.ts";
import type { ObjectChange } from "../../../src/objects/changes.ts";
import { coalescedIndexing } from "../../../src/search/indexing/index-batches.ts";
import type { IndexContext } from "../../../src/search/indexing/indexer.ts";
import { WritesUnderWay } from "../../../src/search/indexing/writes-under-way.ts";
import { type SearchRepository, searchEngineDb, searchRepository } from "../../../src/search/store/index.ts";
import type { ObjectStore } from "../../../src/store/types.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

const fakeStore = {} as ObjectStore; // text/csv objects: the indexer reads no bytes

const created = (object: StoredObject): ObjectChange[] => [
  { kind: "created", object, origin: "client", replan: false },
];

/** The index's tables with their writes counted (PIDs per call), failing for any write that includes `refused`. */
function watched(db: Database, refused: string): { search: IndexContext["search"]; writes: string[][] } {
  const writes: string[][] = [];
  const tables = searchRepository(db);
  const search = {
    ...tables,
    writeDocuments: async (entries: Parameters<SearchRepository["writeDocuments"]>[0]) => {
      const pids = entries.map((entry) => entry.pid);
      writes.push(pids);
      if (pids.includes(refused)) throw new Error(`${refused} cannot be indexed`);
      return tables.writeDocuments(entries);
    },
    writeDocument: async (...args: Parameters<SearchRepository["writeDocument"]>) => {
      writes.push([args[0]]);
      if (args[0] === refused) throw new Error(`${refused} cannot be indexed`);
      return tables.writeDocument(...args);
    },
  };
  return { search: { db: { ...searchEngineDb(db), search } }, writes };
}

forEachDialect((_name, open) => {
  describe("coalesced indexing", () => {
    it("indexes the creates that wait together, and each alone when the shared write fails", async () => {
      const raw = await open();
      const objects = ["first", "a", "b", "refused", "c"].map((name, n) =>
        storedObject(`coalesced-${name}`, {}, n),
      );
      await raw.objects.insertMany(objects);
      const { search, writes } = watched(raw, "coalesced-refused");
      const index = coalescedIndexing({ db: raw, search, store: fakeStore, formats: loadFormatRegistry() });
      // The first four commit in the same turn and go together; the last commits while they are indexed.
      const together = objects.slice(0, 4).map((object) => index(created(object)));
      while (writes.length === 0) await new Promise((resolve) => setImmediate(resolve));
      await Promise.all([...together, ...objects.slice(4).map((object) => index(created(object)))]);
      // The shared write fails (one refused), so each of the four is then written alone, before the last.
      assert.deepEqual(writes[0], ["coalesced-first", "coalesced-a", "coalesced-b", "coalesced-refused"]);
      assert.deepEqual(writes.at(-1), ["coalesced-c"]);
      for (const object of objects) {
        const pid = object.sysmeta.identifier;
        const indexed = (await searchRepository(raw).readStoredDocs([pid])).has(pid);
        assert.equal(indexed, pid !== "coalesced-refused", `${pid} indexed`);
      }
    });
    it("waits for a write under way to join the batch", async () => {
      const raw = await open();
      const objects = ["early", "late"].map((name, n) => storedObject(`gathered-${name}`, {}, n));
      await raw.objects.insertMany(objects);
      const { search, writes } = watched(raw, "none");
      const underWay = new WritesUnderWay();
      const index = coalescedIndexing(
        { db: raw, search, store: fakeStore, formats: loadFormatRegistry() },
        underWay,
      );
      const [early, late] = objects;
      assert.ok(early && late);
      const lateEnds = underWay.start();
      const first = index(created(early));
      await new Promise((resolve) => setImmediate(resolve));
      // The late write commits (ends) a turn later, and asks to be indexed.
      lateEnds();
      await Promise.all([first, index(created(late))]);
      assert.deepEqual(writes, [["gathered-early", "gathered-late"]]);
    });
  });
});
