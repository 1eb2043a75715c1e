/** The batched event log on SQLite and PostgreSQL: filters, paging, readers. */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Database } from "../../src/db/types.ts";
import { type OpenedDatabase, openTestDatabase, storedObject, testDialects } from "../helpers/databases.ts";

for (const dialect of testDialects()) {
  describe(`event log (${dialect})`, () => {
    let opened: OpenedDatabase;
    let db: Database;
    before(async () => {
      opened = await openTestDatabase(dialect);
      db = opened.db;
      await db.objects.insert(storedObject("ev_1%x", { accessPolicy: [] }));
      await db.objects.insert(
        storedObject("ev_2", { accessPolicy: [{ subjects: ["public"], permissions: ["read"] }] }),
      );
      for (let i = 0; i < 30; i++) {
        db.events.append({
          identifier: i % 2 ? "ev_1%x" : "ev_2",
          event: i % 3 ? "read" : "create",
          ipAddress: "127.0.0.1",
          userAgent: "test",
          subject: "CN=s",
          dateLogged: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
          nodeIdentifier: "urn:node:TEST",
        });
      }
      await db.events.flush();
    });
    after(() => opened.dispose());

    it("lists with date, event and identifier-prefix filters", async () => {
      const all = await db.events.list({}, 0, 100);
      assert.equal(all.total, 30);
      const window = await db.events.list(
        {
          fromDate: new Date(Date.UTC(2026, 0, 1, 0, 0, 10)),
          toDate: new Date(Date.UTC(2026, 0, 1, 0, 0, 20)),
        },
        0,
        100,
      );
      assert.equal(window.total, 10);
      assert.equal((await db.events.list({ event: "create" }, 0, 100)).total, 10);
      // A prefix with LIKE wildcards in it matches literally.
      assert.equal((await db.events.list({ idFilter: "ev_1%" }, 0, 100)).total, 15);
      assert.equal((await db.events.list({ idFilter: "ev_" }, 0, 100)).total, 30);
      assert.equal((await db.events.list({ idFilter: "ev%" }, 0, 100)).total, 0);
    });

    it("pages in (dateLogged, id) order and filters by readers", async () => {
      const ids: string[] = [];
      for (let start = 0; start < 30; start += 7)
        ids.push(...(await db.events.list({}, start, 7)).items.map((e) => e.entryId));
      assert.equal(new Set(ids).size, 30);
      const dates = (await db.events.list({}, 0, 30)).items.map((e) => e.dateLogged.getTime());
      assert.deepEqual(
        dates,
        [...dates].sort((a, b) => a - b),
      );
      assert.equal((await db.events.list({ readableBy: ["public"] }, 0, 100)).total, 15);
    });
  });
}
