/**
 * Harvested log entries (events.addHarvested) on SQLite and PostgreSQL: stored once per (source node, entry id)
 * whatever the page size, the text exactly as read, the lists' totals exact after pages partly stored before, and
 * a page committed together with what runs in its transaction, or not at all.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { HarvestedLogEntry } from "../../../src/db/types.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

const SOURCE = "urn:node:HARVESTED";

function harvested(i: number, fields: Partial<HarvestedLogEntry> = {}): HarvestedLogEntry {
  return {
    identifier: `h-${i % 7}`,
    event: i % 2 === 0 ? "read" : "create",
    ipAddress: "192.0.2.1",
    userAgent: "test",
    subject: "CN=reader",
    dateLogged: new Date(Date.UTC(2026, 0, 1) + i),
    nodeIdentifier: SOURCE,
    sourceNode: SOURCE,
    sourceEntryId: String(i),
    ...fields,
  };
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);

forEachDialect((_name, open) => {
  describe("harvested log entries", () => {
    it("store a page larger than one statement once, counting only the new entries in the totals", async () => {
      const db = await open();
      assert.equal(await db.events.addHarvested(range(0, 1000).map((i) => harvested(i))), 1000);
      // Remembered totals, unfiltered and by event type, must follow the partly new page below.
      assert.equal((await db.events.list({}, 0, 1)).total, 1000);
      assert.equal((await db.events.list({ event: "create" }, 0, 1)).total, 500);
      const page = range(500, 12_001).map((i) => harvested(i));
      assert.equal(await db.events.addHarvested(page), 11_001);
      assert.equal(await db.events.addHarvested(page), 0);
      assert.equal((await db.events.list({}, 0, 1)).total, 12_001);
      assert.equal((await db.events.list({ event: "create" }, 0, 1)).total, 6000);
      const last = await db.events.list({}, 12_000, 5);
      assert.deepEqual(
        last.items.map((e) => [e.identifier, e.dateLogged.getTime()]),
        [[`h-${12_000 % 7}`, Date.UTC(2026, 0, 1) + 12_000]],
      );
    });

    it("keep the text of every field exactly as read", async () => {
      const db = await open();
      const odd = {
        identifier: 'doi:10.5063/"q"\\back\u00e9\u4e2d\ud83d\ude00',
        userAgent: "agent\twith\ttabs\nand a newline, {braces}, [brackets] and 'quotes'",
        subject: 'CN=Ünïcödé,O="Org, Inc.",DC=org',
        ipAddress: "",
      };
      assert.equal(await db.events.addHarvested([harvested(1, odd)]), 1);
      const [stored] = (await db.events.list({}, 0, 10)).items;
      assert.deepEqual(
        {
          identifier: stored?.identifier,
          userAgent: stored?.userAgent,
          subject: stored?.subject,
          ipAddress: stored?.ipAddress,
        },
        odd,
      );
    });

    it("commit a page with the work run in its transaction, or neither", async () => {
      const db = await open();
      await assert.rejects(
        db.events.addHarvested([harvested(1), harvested(2)], async () => {
          throw new Error("the progress could not be saved");
        }),
        /progress could not be saved/,
      );
      assert.equal((await db.events.list({}, 0, 10)).total, 0);
      let seen = -1;
      const added = await db.events.addHarvested([harvested(1), harvested(2)], async (tx, count) => {
        seen = count;
        await db.logProgress.save(SOURCE, new Date(Date.UTC(2026, 0, 1) + 2), count, tx);
      });
      assert.deepEqual({ added, seen }, { added: 2, seen: 2 });
      assert.equal((await db.events.list({}, 0, 10)).total, 2);
      assert.equal((await db.logProgress.read(SOURCE))?.entries, 2);
    });
  });
});
