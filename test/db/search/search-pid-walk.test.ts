/**
 * Bulk indexing's walk over both sides of the search module's wall, on both dialects and across more than one
 * walk page: the objects without a document, the count of them, and the documents whose object is gone are
 * those (and in the order) one SQL query joining `objects` with `search_docs` finds.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { sql } from "kysely";
import { loadFormatRegistry } from "../../../src/context/formats.ts";
import type { Database } from "../../../src/db/types.ts";
import { indexStoredObjects } from "../../../src/search/indexing/indexer.ts";
import {
  countObjectPids,
  goneObjectPages,
  objectPidPages,
  WALK_PAGE,
} from "../../../src/search/indexing/pid-walk.ts";
import type { ObjectStore } from "../../../src/store/types.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

/** CSV objects: nothing to extract, the store is never read. */
const noStore = {} as ObjectStore;
const PAGE = 200;

async function collect(pages: AsyncGenerator<string[], void>): Promise<string[][]> {
  const all: string[][] = [];
  for await (const page of pages) all.push(page);
  return all;
}

forEachDialect((dialect, open) => {
  describe(`the walk of object and document PIDs (${dialect})`, () => {
    let db: Database;
    const ctx = () => ({ db, store: noStore, formats: loadFormatRegistry() });

    before(async () => {
      db = await open();
      const objects = Array.from({ length: WALK_PAGE + 700 }, (_, i) =>
        storedObject(`pw-${String(i).padStart(5, "0")}`),
      );
      await db.objects.insertMany(objects);
      // Every third object has a document, and a run of them a whole walk page long none.
      await indexStoredObjects(
        ctx(),
        objects.filter((_, i) => i % 3 === 0 && (i < 300 || i > 300 + WALK_PAGE / 2)),
      );
      // Documents whose object is gone, among the others and after the last object.
      const gone = ["pw-00100-gone", "pw-02100-gone", "pw-99999-gone"].map((pid) => storedObject(pid));
      await db.objects.insertMany(gone);
      await indexStoredObjects(ctx(), gone);
      for (const { sysmeta } of gone) await db.objects.remove(sysmeta.identifier);
    });

    /** The oracle: one query joining the two sides. */
    const withoutDocument = async (after?: string) => {
      const { rows } = await sql<{ pid: string }>`
        select pid from objects o
        where ${after === undefined ? sql`1 = 1` : sql`pid > ${after}`}
          and not exists (select 1 from search_docs d where d.pid = o.pid)
        order by pid`.execute(db.kysely);
      return rows.map((row) => row.pid);
    };

    it("gives the objects without a document in pages of the size asked, in PID order, and counts them", async () => {
      const expected = await withoutDocument();
      assert.ok(expected.length > WALK_PAGE, "more than one walk page of them");
      const pages = await collect(objectPidPages(ctx(), undefined, PAGE, true));
      assert.deepEqual(pages.flat(), expected);
      assert.ok(pages.slice(0, -1).every((page) => page.length === PAGE));
      assert.equal(await countObjectPids(ctx(), undefined, true), expected.length);
      assert.equal(await db.counts.unindexed(), expected.length, "as the node's own count says");
      const after = expected[700] as string;
      const rest = await collect(objectPidPages(ctx(), after, PAGE, true));
      assert.deepEqual(rest.flat(), await withoutDocument(after));
      assert.equal(await countObjectPids(ctx(), after, true), rest.flat().length);
    });

    it("gives every object in pages, and counts them, from the start or after a PID", async () => {
      const all = (await db.kysely.selectFrom("objects").select("pid").orderBy("pid").execute()).map(
        (row) => row.pid,
      );
      const pages = await collect(objectPidPages(ctx(), undefined, PAGE, false));
      assert.deepEqual(pages.flat(), all);
      assert.ok(pages.slice(0, -1).every((page) => page.length === PAGE));
      assert.equal(await countObjectPids(ctx(), undefined, false), all.length);
      assert.equal(await countObjectPids(ctx(), all[99], false), all.length - 100);
    });

    it("gives the documents whose object is gone, in PID order", async () => {
      assert.deepEqual((await collect(goneObjectPages(ctx(), "documents"))).flat(), [
        "pw-00100-gone",
        "pw-02100-gone",
        "pw-99999-gone",
      ]);
      assert.deepEqual((await collect(goneObjectPages(ctx(), "maps"))).flat(), []);
    });
  });
});
