/** objects.insertMany on SQLite and PostgreSQL: many objects in one write, all or none, as insert stores them. */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { DuplicateKeyError } from "../../../src/db/errors.ts";
import type { Database } from "../../../src/db/types.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

forEachDialect((_name, open) => {
  describe("objects.insertMany", () => {
    let db: Database;
    before(async () => {
      db = await open();
    });

    it("stores every object (beyond one statement's chunk) with its access rules, as insert does", async () => {
      const objects = Array.from({ length: 450 }, (_, i) =>
        storedObject(`batch-${i}`, { fileName: `b${i}.csv` }),
      );
      await db.objects.insertMany(objects);
      await db.objects.insert(storedObject("single", { fileName: "s.csv" }));
      const found = await db.objects.getMany(objects.map((o) => o.sysmeta.identifier));
      assert.equal(found.size, 450);
      const one = found.get("batch-449");
      const single = await db.objects.get("single");
      assert.deepEqual(one?.sysmeta.accessPolicy, single?.sysmeta.accessPolicy);
      const listed = await db.objects.list({}, 0, 1000);
      assert.equal(listed.total, 451);
    });

    it("a PID already stored fails the whole batch: nothing of it is stored", async () => {
      const batch = [storedObject("fresh-1"), storedObject("batch-3"), storedObject("fresh-2")];
      await assert.rejects(db.objects.insertMany(batch), DuplicateKeyError);
      assert.equal(await db.objects.get("fresh-1"), undefined);
      assert.equal((await db.objects.list({}, 0, 1000)).total, 451);
    });
  });
});
