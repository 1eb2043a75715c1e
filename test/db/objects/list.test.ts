/** The object list on SQLite and PostgreSQL: filters, start/count paging over keysets, identifier order. */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { compareCodePoints } from "../../../src/db/lists/order.ts";
import type { Database, ObjectListFilter } from "../../../src/db/types.ts";
import { dateAt, storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

forEachDialect((_name, open) => {
  describe("object list", () => {
    let db: Database;
    before(async () => {
      db = await open();
    });
    const ids = async (filter: ObjectListFilter, start = 0, count = 100) =>
      (await db.objects.list(filter, start, count)).items.map((i) => i.identifier);

    it("filters: dates (from inclusive, to exclusive), format, identifier, replicas, node, readers", async () => {
      const base = 10_000_000;
      await db.objects.insert(storedObject("f-a", { formatId: "text/plain", seriesId: "f-sid" }, base));
      await db.objects.insert(
        storedObject(
          "f-b",
          { authoritativeMemberNode: "urn:node:OTHER", seriesId: "f-sid", obsoletes: "f-a" },
          base + 1,
        ),
      );
      const replica = storedObject("f-c", { rightsHolder: "CN=carol", accessPolicy: [] }, base + 2);
      await db.objects.insert({ ...replica, isReplica: true });
      await db.objects.insert(
        storedObject(
          "f-d",
          { accessPolicy: [{ subjects: ["CN=dan"], permissions: ["changePermission"] }] },
          base + 3,
        ),
      );
      const from = { fromDate: dateAt(base) };
      assert.deepEqual(await ids(from), ["f-a", "f-b", "f-c", "f-d"]);
      assert.deepEqual(await ids({ fromDate: dateAt(base + 1), toDate: dateAt(base + 3) }), ["f-b", "f-c"]);
      assert.deepEqual(await ids({ fromDate: dateAt(base + 3), toDate: dateAt(base + 4) }), ["f-d"]);
      assert.deepEqual(await ids({ ...from, formatId: "text/plain" }), ["f-a"]);
      assert.deepEqual(await ids({ identifier: "f-c" }), ["f-c"]);
      assert.deepEqual(await ids({ identifier: "f-sid" }), ["f-a", "f-b"]);
      assert.deepEqual(await ids({ ...from, replicaStatus: false }), ["f-a", "f-b", "f-d"]);
      assert.deepEqual(await ids({ ...from, replicaStatus: true }), ["f-a", "f-b", "f-c", "f-d"]);
      assert.deepEqual(await ids({ ...from, nodeId: "urn:node:OTHER" }), ["f-b"]);
      assert.deepEqual(await ids({ ...from, readableBy: ["CN=carol"] }), ["f-c"]);
      assert.deepEqual(await ids({ ...from, readableBy: ["CN=dan", "CN=nobody"] }), ["f-d"]);
      assert.deepEqual(await ids({ ...from, readableBy: ["public"] }), ["f-a", "f-b"]);
      assert.deepEqual(await ids({ ...from, readableBy: [] }), []);
      // Readers alone (counted another way): rights holders count as readers.
      const readers = async (readableBy: string[]) => (await db.objects.list({ readableBy }, 0, 10)).total;
      assert.equal(await readers(["CN=owner"]), 3);
      assert.equal(await readers(["CN=carol", "CN=dan", "CN=carol"]), 2);
      assert.equal(await readers(["CN=carol", "CN=dan", "CN=owner", "public"]), 4);
      assert.equal(await readers(["CN=nobody"]), 0);
      const page = await db.objects.list({ identifier: "f-a" }, 0, 10);
      assert.deepEqual(page.items[0], {
        identifier: "f-a",
        formatId: "text/plain",
        checksum: { algorithm: "SHA-1", value: "s".repeat(40) },
        dateSysMetadataModified: dateAt(base),
        size: 3,
      });
    });

    it("pages by start/count in order, with jumps either way and past the end", async () => {
      const base = 50_000_000;
      const pids = Array.from({ length: 2500 }, (_, i) => `page-${String(i).padStart(5, "0")}`);
      await db.transaction(async (tx) => {
        for (const [i, pid] of pids.entries())
          await tx.objects.insert(storedObject(pid, {}, base + Math.floor(i / 3)));
      });
      const filter = { fromDate: dateAt(base) };
      // Cold jumps first (hops through positions never served), then sequential pages, then warm jumps.
      assert.deepEqual(await ids(filter, 2345, 10), pids.slice(2345, 2355));
      assert.deepEqual(await ids(filter, 1999, 3), pids.slice(1999, 2002));
      const seen: string[] = [];
      for (let start = 0; start < 2500; start += 100) {
        const page = await db.objects.list(filter, start, 100);
        assert.equal(page.total, 2500);
        assert.equal(page.start, start);
        seen.push(...page.items.map((i) => i.identifier));
      }
      assert.deepEqual(seen, pids);
      for (const [start, count] of [
        [1234, 3],
        [17, 2],
        [2499, 5],
        [1000, 1000],
        [999, 2],
        [0, 1],
      ] as const) {
        assert.deepEqual(
          await ids(filter, start, count),
          pids.slice(start, start + count),
          `${start}/${count}`,
        );
      }
      for (const start of [2500, 9999]) {
        const beyond = await db.objects.list(filter, start, 10);
        assert.deepEqual([beyond.items.length, beyond.total, beyond.start], [0, 2500, start]);
      }
      assert.deepEqual(await ids(filter, 10, 0), []);
    });

    it("stays exact when writes land before, inside and after remembered positions", async () => {
      const base = 60_000_000;
      const expected = Array.from({ length: 1500 }, (_, i) => ({
        pid: `w-${String(i).padStart(4, "0")}`,
        at: i,
      }));
      await db.transaction(async (tx) => {
        for (const { pid, at } of expected) await tx.objects.insert(storedObject(pid, {}, base + at));
      });
      const filter = { fromDate: dateAt(base - 10) };
      const sorted = () =>
        [...expected].sort((a, b) => a.at - b.at || compareCodePoints(a.pid, b.pid)).map((e) => e.pid);
      const check = async () => {
        for (const start of [750, 0, 700, 999, 1000, 1200, expected.length - 1]) {
          const page = await db.objects.list(filter, start, 50);
          assert.equal(page.total, expected.length);
          assert.deepEqual(
            page.items.map((i) => i.identifier),
            sorted().slice(start, start + 50),
          );
        }
      };
      await check();
      const writes: [string, number][] = [
        ["w-late", 5000],
        ["w-0700a", 700],
        ["w-early", -1],
      ];
      for (const [pid, at] of writes) {
        await db.objects.insert(storedObject(pid, {}, base + at));
        expected.push({ pid, at });
        await check();
      }
      await db.objects.remove("w-0100");
      expected.splice(100, 1);
      await check();
      // The row whose key marks position 750 (a page served above ended there).
      const boundary = sorted()[749] as string;
      await db.objects.remove(boundary);
      expected.splice(
        expected.findIndex((e) => e.pid === boundary),
        1,
      );
      await check();
      const moved = (await db.objects.get("w-1300"))?.sysmeta;
      assert.ok(moved);
      await db.objects.replaceSysmeta({ ...moved, dateSysMetadataModified: dateAt(base + 10) });
      const entry = expected.find((e) => e.pid === "w-1300");
      if (entry) entry.at = 10;
      await check();
      await db.transaction((tx) => tx.objects.insert(storedObject("w-0500a", {}, base + 500)));
      expected.push({ pid: "w-0500a", at: 500 });
      await check();
    });

    it("keeps remembered totals right through writes that enter, leave and move within lists", async () => {
      const filters: ObjectListFilter[] = [
        {},
        { formatId: "text/x-adjust" },
        { readableBy: ["CN=adjust-reader"] },
        { readableBy: ["CN=adjust-reader"], fromDate: dateAt(80_000_000) },
        { identifier: "adjust-sid" },
        { replicaStatus: false, nodeId: "urn:node:ADJUST" },
        { fromDate: dateAt(80_000_000), toDate: dateAt(80_000_010) },
      ];
      let step = 0;
      // The same rows under a filter never listed before (no object lies within 79,000,000-80,000,000 or after
      // 1e12): counted afresh.
      const fresh = (f: ObjectListFilter): ObjectListFilter =>
        f.toDate ? { ...f, fromDate: dateAt(79_000_000 + step++) } : { ...f, toDate: dateAt(1e12 + step++) };
      const compare = async () => {
        for (const f of filters) {
          const [cached, counted] = [
            await db.objects.list(f, 0, 5000),
            await db.objects.list(fresh(f), 0, 5000),
          ];
          assert.equal(cached.total, counted.total, JSON.stringify(f));
          assert.deepEqual(cached.items, counted.items, JSON.stringify(f));
        }
      };
      await compare();
      const reader = { subjects: ["CN=adjust-reader"], permissions: ["read" as const] };
      const a = storedObject("adjust-a", { formatId: "text/x-adjust", seriesId: "adjust-sid" }, 80_000_001);
      await db.objects.insert(a);
      await compare();
      const b = storedObject(
        "adjust-b",
        { accessPolicy: [reader], authoritativeMemberNode: "urn:node:ADJUST" },
        80_000_005,
      );
      await db.objects.insert({ ...b, isReplica: true });
      await compare();
      await db.objects.replaceSysmeta({ ...a.sysmeta, formatId: "text/csv", accessPolicy: [reader] });
      await compare();
      await db.objects.replaceSysmeta({ ...b.sysmeta, rightsHolder: "CN=adjust-reader", accessPolicy: [] });
      await compare();
      await db.objects.replaceSysmeta({
        ...b.sysmeta,
        seriesId: "adjust-sid",
        dateSysMetadataModified: dateAt(80_000_020),
      });
      await compare();
      await db.transaction(async (tx) => {
        await tx.objects.remove("adjust-a");
        await tx.objects.insert(storedObject("adjust-c", { formatId: "text/x-adjust" }, 80_000_003));
      });
      await compare();
      await db.objects.remove("adjust-b");
      await compare();
    });

    it("orders tricky Unicode identifiers byte-wise, in SQL keysets and in memory alike", async () => {
      const tricky = [
        "Z",
        "a",
        "A",
        "é",
        "e\u0301",
        "ǅ",
        "ß",
        "ss",
        "İ",
        "日本",
        "😀",
        "\uE000",
        "\uFFFD",
        "%2F",
        "a/b",
        "a b",
        "a\tb",
        "a%",
        "a_",
        "a\\",
        "'quoted'",
        " lead",
        "x".repeat(800),
        "x".repeat(799),
      ];
      const at = 90_000_000;
      for (const pid of tricky) await db.objects.insert(storedObject(pid, {}, at));
      const expected = [...tricky].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      const filter = { fromDate: dateAt(at), toDate: dateAt(at + 1) };
      assert.deepEqual(await ids(filter), expected);
      // Three at a time: every page continues from a key the database compares.
      const paged: string[] = [];
      for (let start = 0; start < tricky.length; start += 3) paged.push(...(await ids(filter, start, 3)));
      assert.deepEqual(paged, expected);
      assert.deepEqual([...tricky].sort(compareCodePoints), expected);
      for (const pid of tricky) assert.equal((await db.objects.get(pid))?.sysmeta.identifier, pid);
    });
  });
});
