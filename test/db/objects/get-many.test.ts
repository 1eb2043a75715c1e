/** objects.getMany on SQLite and PostgreSQL: the same objects as get, across batches, absent pids left out. */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { Database } from "../../../src/db/types.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

forEachDialect((_name, open) => {
  describe("objects.getMany", () => {
    let db: Database;
    const pids = Array.from({ length: 1203 }, (_, i) => `many-${i}`);
    before(async () => {
      db = await open();
      for (const pid of pids) await db.objects.insert(storedObject(pid, { fileName: `${pid}.csv` }));
    });

    it("returns every held pid once, equal to get, and leaves absent ones out", async () => {
      const asked = [...pids, "many-absent", "many-0", "many-1202"];
      const found = await db.objects.getMany(asked);
      assert.equal(found.size, pids.length);
      assert.equal(found.has("many-absent"), false);
      for (const pid of ["many-0", "many-600", "many-1202"])
        assert.deepEqual(found.get(pid), await db.objects.get(pid));
    });

    it("gets asked at once (coalesced into one query on PostgreSQL) each answer their own pid", async () => {
      const asked = ["many-5", "many-absent", "many-7", "many-5", "many-1100"];
      const rows = await Promise.all(asked.map((pid) => db.objects.get(pid)));
      assert.deepEqual(
        rows.map((row) => row?.sysmeta.identifier),
        ["many-5", undefined, "many-7", "many-5", "many-1100"],
      );
      assert.equal(rows[0]?.sysmeta.fileName, "many-5.csv");
    });

    it("answers an empty question with an empty map", async () => {
      assert.equal((await db.objects.getMany([])).size, 0);
    });
  });
});
