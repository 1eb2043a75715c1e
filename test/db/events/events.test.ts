/** The batched event log on SQLite and PostgreSQL: queueing, filters, paging, readers. */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { Database, NewLogEntry } from "../../../src/db/types.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { pollUntil } from "../../helpers/time/eventually.ts";

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));

function entry(identifier: string, second: number, event = "read"): NewLogEntry {
  return {
    identifier,
    event,
    ipAddress: "127.0.0.1",
    userAgent: "test",
    subject: "CN=s",
    dateLogged: at(second),
    nodeIdentifier: "urn:node:TEST",
  };
}

forEachDialect((_name, open) => {
  describe("event log", () => {
    let db: Database;
    before(async () => {
      db = await open();
      await db.objects.insert(storedObject("ev_1%x", { accessPolicy: [] }));
      await db.objects.insert(storedObject("ev_2"));
      for (let i = 0; i < 30; i++)
        db.events.append(entry(i % 2 ? "ev_1%x" : "ev_2", i, i % 3 ? "read" : "create"));
      await db.events.flush();
    });

    it("writes appended entries on flush, and by itself shortly after", async () => {
      const page = await db.events.list({}, 0, 100);
      assert.equal(page.total, 30);
      const first = page.items[0];
      assert.ok(first);
      assert.match(first.entryId, /^\d+$/);
      assert.deepEqual({ ...first, entryId: "" }, { ...entry("ev_2", 0, "create"), entryId: "" });
      db.events.append(entry("ev_timer", 100));
      // No flush: the log's own timer writes it.
      await pollUntil(
        async () => (await db.events.list({ idFilter: "ev_timer" }, 0, 10)).total,
        (total) => total === 1,
      );
      await db.events.flush();
    });

    it("filters by date (from inclusive, to exclusive), event and identifier prefix", async () => {
      assert.equal((await db.events.list({ fromDate: at(10), toDate: at(20) }, 0, 100)).total, 10);
      assert.equal((await db.events.list({ fromDate: at(29) }, 0, 100)).total, 2);
      assert.equal((await db.events.list({ toDate: at(1) }, 0, 100)).total, 1);
      assert.equal((await db.events.list({ event: "create" }, 0, 100)).total, 10);
      // LIKE wildcards in a prefix match literally.
      assert.equal((await db.events.list({ idFilter: "ev_1%" }, 0, 100)).total, 15);
      assert.equal((await db.events.list({ idFilter: "ev_" }, 0, 100)).total, 31);
      assert.equal((await db.events.list({ idFilter: "ev%" }, 0, 100)).total, 0);
      assert.equal((await db.events.list({ idFilter: "ev_1%x" }, 0, 100)).total, 15);
      assert.equal((await db.events.list({ idFilter: "ev_1%xy" }, 0, 100)).total, 0);
      assert.equal((await db.events.list({ idFilter: "" }, 0, 100)).total, 31);
    });

    it("matches prefixes exactly beyond ASCII", async () => {
      const pids = [
        "ü",
        "üa",
        "ü\u{10FFFF}",
        "ü\u{10FFFF}z",
        "üb",
        "v",
        "\u{10FFFF}",
        "\u{10FFFF}\u{10FFFF}",
        "u",
      ];
      for (const pid of pids) db.events.append(entry(pid, 500));
      await db.events.flush();
      const matching = async (idFilter: string) =>
        (await db.events.list({ idFilter, fromDate: at(500) }, 0, 100)).items.map((e) => e.identifier).sort();
      assert.deepEqual(await matching("ü"), ["ü", "üa", "üb", "ü\u{10FFFF}", "ü\u{10FFFF}z"].sort());
      assert.deepEqual(await matching("ü\u{10FFFF}"), ["ü\u{10FFFF}", "ü\u{10FFFF}z"].sort());
      assert.deepEqual(await matching("\u{10FFFF}"), ["\u{10FFFF}", "\u{10FFFF}\u{10FFFF}"].sort());
    });

    it("pages in (dateLogged, id) order, and keeps its place while entries arrive", async () => {
      const all = (await db.events.list({}, 0, 1000)).items;
      const dates = all.map((e) => e.dateLogged.getTime());
      assert.deepEqual(
        dates,
        [...dates].sort((a, b) => a - b),
      );
      const ids: string[] = [];
      for (let start = 0; start < all.length; start += 7) {
        ids.push(...(await db.events.list({}, start, 7)).items.map((e) => e.entryId));
        // Later entries arrive between pages, at the end of the order.
        db.events.append(entry("ev_late", 10_000 + start));
        await db.events.flush();
      }
      assert.deepEqual(
        ids.slice(0, all.length),
        all.map((e) => e.entryId),
      );
      const same = await db.events.list({}, 3, 5);
      assert.deepEqual(
        same.items.map((e) => e.entryId),
        ids.slice(3, 8),
      );
      // An entry dated before the pages served moves them: the list stays exact.
      db.events.append(entry("ev_early", -1));
      await db.events.flush();
      const shifted = await db.events.list({}, 0, 3);
      assert.deepEqual(
        shifted.items.map((e) => e.identifier),
        ["ev_early", ...all.slice(0, 2).map((e) => e.identifier)],
      );
      assert.deepEqual(
        (await db.events.list({}, 4, 2)).items.map((e) => e.entryId),
        ids.slice(3, 5),
      );
      const beyond = await db.events.list({}, 10_000, 5);
      assert.equal(beyond.items.length, 0);
      assert.equal(beyond.total > 0, true);
    });

    it("jumps cold over several thousand entries to the same page sequential paging finds, filtered or not", async () => {
      for (let i = 0; i < 3500; i++)
        db.events.append(entry(`ev_hop_${i}`, 20_000 + i, i % 2 ? "read" : "hop"));
      await db.events.flush();
      const window = { fromDate: at(20_000), toDate: at(30_000) };
      for (const [filter, total] of [
        [window, 3500],
        [{ ...window, event: "hop" }, 1750],
      ] as const) {
        const jumps = [
          [total - 7, 7],
          [2345, 10],
          [1999, 3],
        ] as const;
        const cold = [];
        for (const [start, count] of jumps) cold.push(await db.events.list(filter, start, count));
        const all: string[] = [];
        for (let start = 0; start < total; start += 500) {
          all.push(...(await db.events.list(filter, start, 500)).items.map((e) => e.entryId));
        }
        assert.equal(all.length, total);
        for (const [i, [start, count]] of jumps.entries()) {
          assert.deepEqual(
            cold[i]?.items.map((e) => e.entryId),
            all.slice(start, start + count),
            `${JSON.stringify(filter)} ${start}/${count}`,
          );
        }
      }
    });

    it("retries a failed batch once, then drops it rather than block later entries", async () => {
      db.events.append({ ...entry("ev_poison", 900), subject: null as unknown as string });
      await assert.rejects(db.events.flush());
      db.events.append(entry("ev_after_poison", 901));
      await db.events.flush();
      assert.equal((await db.events.list({ idFilter: "ev_after_poison" }, 0, 10)).total, 1);
      assert.equal((await db.events.list({ idFilter: "ev_poison" }, 0, 10)).total, 0);
    });

    it("filters by readers, through the objects the entries are about", async () => {
      assert.equal((await db.events.list({ readableBy: ["public"], toDate: at(30) }, 0, 100)).total, 15);
      assert.equal((await db.events.list({ readableBy: ["CN=owner"], toDate: at(30) }, 0, 100)).total, 30);
      assert.equal((await db.events.list({ readableBy: ["CN=other"] }, 0, 100)).total, 0);
      assert.equal((await db.events.list({ readableBy: [] }, 0, 100)).total, 0);
      await db.objects.remove("ev_2");
      assert.equal((await db.events.list({ readableBy: ["public"] }, 0, 100)).total, 0);
    });

    it("writes a batch of several multi-row statements whole, in order, and counts it", async () => {
      const before = (await db.events.list({}, 0, 0)).total;
      for (let i = 0; i < 123; i++)
        db.events.append(entry(`ev_batch_${String(i).padStart(3, "0")}`, 200 + i));
      await db.events.flush();
      const page = await db.events.list({ idFilter: "ev_batch_" }, 0, 200);
      assert.equal(page.total, 123);
      assert.deepEqual(
        page.items.map((e) => e.identifier),
        Array.from({ length: 123 }, (_, i) => `ev_batch_${String(i).padStart(3, "0")}`),
      );
      assert.equal((await db.events.list({}, 0, 0)).total, before + 123);
    });
  });
});
