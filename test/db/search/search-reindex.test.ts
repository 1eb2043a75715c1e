/**
 * reindexObjects on both dialects, where another process writes meanwhile (PostgreSQL: a serving node): an
 * object whose system metadata changed, or that went away, after its page was read ends with the document of what
 * it now is (or none); pages are keyset by pid, so every object is read once whatever the page size.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { loadFormatRegistry } from "../../../src/context/formats.ts";
import type { Database, StoredObject } from "../../../src/db/types.ts";
import { reindexObjects } from "../../../src/search/indexing/reindex.ts";
import { readStoredDocs } from "../../../src/search/store/index-store.ts";
import type { ObjectStore } from "../../../src/store/types.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

const formats = loadFormatRegistry();
/** CSV objects: nothing to extract, the store is never read. */
const noStore = {} as ObjectStore;

forEachDialect((dialect, open) => {
  describe(`bulk reindexing beside other writers (${dialect})`, () => {
    let db: Database;
    before(async () => {
      db = await open();
    });

    /** A context whose reads of whole objects return what `stale` says (the copy read before a change). */
    const readingStale = (stale: (object: StoredObject) => StoredObject) => ({
      db: {
        ...db,
        objects: {
          ...db.objects,
          getMany: async (pids: readonly string[]) => {
            const found = await db.objects.getMany(pids);
            return new Map([...found].map(([pid, object]) => [pid, stale(object)]));
          },
        },
      },
      store: noStore,
      formats,
    });

    it("an object changed after its page was read is indexed as it now is", async () => {
      const pids = ["rx-1", "rx-2", "rx-3", "rx-4", "rx-5"];
      const objects = pids.map((pid, i) => storedObject(pid, { fileName: `${pid}.csv` }, i));
      await db.objects.insertMany(objects);
      const original = new Map(objects.map((object) => [object.sysmeta.identifier, object]));
      const changed = {
        ...storedObject("rx-3", { fileName: "renamed.csv" }, 2).sysmeta,
        serialVersion: 2,
        archived: true,
      };
      await db.objects.replaceSysmeta(changed, 1);
      const ctx = readingStale((object) => original.get(object.sysmeta.identifier) ?? object);
      const progress = await reindexObjects(ctx, { batchSize: 2 });
      assert.deepEqual(progress, { seen: 5, written: 5, failed: 0, removed: 0 });
      const docs = await readStoredDocs(db, pids);
      assert.deepEqual(
        pids.map((pid) => docs.get(pid)?.fileName),
        ["rx-1.csv", "rx-2.csv", "renamed.csv", "rx-4.csv", "rx-5.csv"],
      );
      assert.equal(docs.get("rx-3")?.archived, true);
    });

    it("an object removed after its page was read is left without a document", async () => {
      await db.objects.insert(storedObject("ry-gone"));
      const ctx = {
        ...readingStale((object) => object),
        db: {
          ...db,
          objects: {
            ...db.objects,
            getMany: async (pids: readonly string[]) => {
              const found = await db.objects.getMany(pids);
              if (found.has("ry-gone")) await db.objects.remove("ry-gone");
              return found;
            },
          },
        },
      };
      await reindexObjects(ctx, { missingOnly: true });
      assert.equal((await readStoredDocs(db, ["ry-gone"])).size, 0);
    });
  });
});
