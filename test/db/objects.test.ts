/** The objects repository on SQLite and PostgreSQL: round trips, series, filters, paging, transactions. */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DuplicateKeyError } from "../../src/db/index.ts";
import type { Database } from "../../src/db/types.ts";
import { type OpenedDatabase, openTestDatabase, storedObject, testDialects } from "../helpers/databases.ts";

for (const dialect of testDialects()) {
  describe(`objects repository (${dialect})`, () => {
    let opened: OpenedDatabase;
    let db: Database;
    before(async () => {
      opened = await openTestDatabase(dialect);
      db = opened.db;
    });
    after(() => opened.dispose());

    it("round-trips a full system metadata document to the millisecond", async () => {
      const object = storedObject("full-1", {
        accessPolicy: [
          { subjects: ["CN=a", "CN=b"], permissions: ["read", "write"] },
          { subjects: ["public"], permissions: ["read"] },
        ],
        replicationPolicy: {
          replicationAllowed: true,
          numberReplicas: 2,
          preferredMemberNodes: ["urn:node:P"],
          blockedMemberNodes: [],
        },
        replicas: [
          {
            replicaMemberNode: "urn:node:R",
            replicationStatus: "completed",
            replicaVerified: new Date(1_700_000_000_123),
          },
        ],
        seriesId: "series-full",
        mediaType: { name: "text/csv", properties: [{ name: "charset", value: "UTF-8" }] },
        fileName: "data ü.csv",
        dateUploaded: new Date(1_700_000_000_001),
        dateSysMetadataModified: new Date(1_700_000_000_999),
      });
      object.digests.extra = { algorithm: "SHA-512", value: "f".repeat(128) };
      await db.objects.insert(object);
      assert.deepEqual(await db.objects.get("full-1"), object);
      await assert.rejects(db.objects.insert(object), DuplicateKeyError);
    });

    it("replaces system metadata and removes objects", async () => {
      const object = storedObject("replace-1");
      await db.objects.insert(object);
      const next = { ...object.sysmeta, serialVersion: 2, archived: true, accessPolicy: [] };
      await db.objects.replaceSysmeta(next);
      assert.deepEqual((await db.objects.get("replace-1"))?.sysmeta, next);
      assert.equal((await db.objects.countByContentKey(object.contentKey)) > 0, true);
      await db.objects.remove("replace-1");
      assert.equal(await db.objects.get("replace-1"), undefined);
    });

    it("finds the head of a series and whether identifiers are in use", async () => {
      await db.objects.insert(storedObject("s-1", { seriesId: "sid-x", obsoletedBy: "s-2" }, 1));
      await db.objects.insert(storedObject("s-2", { seriesId: "sid-x", obsoletes: "s-1" }, 2));
      await db.objects.insert(storedObject("s-3", { seriesId: "sid-y", obsoletes: "s-2" }, 3));
      assert.equal(await db.objects.headOfSeries("sid-x"), "s-2");
      assert.deepEqual(await db.objects.pidsOfSeries("sid-x"), ["s-1", "s-2"]);
      assert.equal(await db.objects.headOfSeries("sid-none"), undefined);
      assert.equal(await db.objects.isIdentifierInUse("sid-y"), true);
      assert.equal(await db.objects.isIdentifierInUse("s-3"), true);
      assert.equal(await db.objects.isIdentifierInUse("nothing"), false);
    });

    it("filters lists: dates (from inclusive, to exclusive), format, identifier, replicas, node, readers", async () => {
      const base = 10_000_000;
      await db.objects.insert(storedObject("f-a", { formatId: "text/plain" }, base));
      await db.objects.insert(storedObject("f-b", { authoritativeMemberNode: "urn:node:OTHER" }, base + 1));
      const replica = storedObject("f-c", { rightsHolder: "CN=carol", accessPolicy: [] }, base + 2);
      await db.objects.insert({ ...replica, isReplica: true });
      const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);
      const ids = async (filter: Parameters<Database["objects"]["list"]>[0]) =>
        (await db.objects.list(filter, 0, 100)).items.map((i) => i.identifier);
      assert.deepEqual(await ids({ fromDate: at(base), toDate: at(base + 2) }), ["f-a", "f-b"]);
      assert.deepEqual(await ids({ fromDate: at(base), formatId: "text/plain" }), ["f-a"]);
      assert.deepEqual(await ids({ fromDate: at(base), replicaStatus: false }), ["f-a", "f-b"]);
      assert.deepEqual(await ids({ fromDate: at(base), nodeId: "urn:node:OTHER" }), ["f-b"]);
      assert.deepEqual(await ids({ fromDate: at(base), readableBy: ["CN=carol"] }), ["f-c"]);
      assert.deepEqual(await ids({ fromDate: at(base), readableBy: ["CN=nobody"] }), []);
      assert.deepEqual(await ids({ identifier: "sid-x" }), ["s-1", "s-2"]);
    });

    it("pages by start/count in order, with jumps, past the end, and after writes", async () => {
      const base = 50_000_000;
      const pids = Array.from({ length: 2500 }, (_, i) => `page-${String(i).padStart(5, "0")}`);
      await db.transaction(async (tx) => {
        for (const [i, pid] of pids.entries())
          await tx.objects.insert(storedObject(pid, {}, base + Math.floor(i / 3)));
      });
      const filter = { fromDate: new Date(Date.UTC(2026, 0, 1) + base) };
      const seen: string[] = [];
      for (let start = 0; start < 2500; start += 100) {
        const page = await db.objects.list(filter, start, 100);
        assert.equal(page.total, 2500);
        seen.push(...page.items.map((i) => i.identifier));
      }
      assert.deepEqual(seen, pids);
      assert.deepEqual(
        (await db.objects.list(filter, 1234, 3)).items.map((i) => i.identifier),
        pids.slice(1234, 1237),
      );
      assert.deepEqual(
        (await db.objects.list(filter, 17, 2)).items.map((i) => i.identifier),
        pids.slice(17, 19),
      );
      const beyond = await db.objects.list(filter, 2500, 10);
      assert.deepEqual([beyond.items.length, beyond.total], [0, 2500]);
      await db.objects.insert(storedObject("page-00000a", {}, base));
      const shifted = await db.objects.list(filter, 0, 2);
      assert.equal(shifted.total, 2501);
      assert.deepEqual(
        shifted.items.map((i) => i.identifier),
        ["page-00000", "page-00000a"],
      );
    });

    it("orders tricky Unicode identifiers byte-wise on both dialects", async () => {
      const tricky = ["Z", "a", "é", "ǅ", "日本", "😀", "%2F", "a/b", "A"];
      for (const pid of tricky) await db.objects.insert(storedObject(`u-${pid}`, {}, 90_000_000));
      const page = await db.objects.list({ fromDate: new Date(Date.UTC(2026, 0, 1) + 90_000_000) }, 0, 100);
      const expected = tricky
        .map((p) => `u-${p}`)
        .sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      assert.deepEqual(
        page.items.map((i) => i.identifier),
        expected,
      );
    });

    it("rolls transactions back on throw, and runs concurrent transactions one after the other", async () => {
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.objects.insert(storedObject("tx-rolled-back"));
          throw new Error("boom");
        }),
        /boom/,
      );
      assert.equal(await db.objects.get("tx-rolled-back"), undefined);
      await Promise.all(
        ["tx-1", "tx-2"].map((pid) =>
          db.transaction(async (tx) => {
            await tx.objects.insert(storedObject(pid));
            await tx.blobIntents.add(`${pid}-key`);
            await tx.blobIntents.remove(`${pid}-key`);
          }),
        ),
      );
      assert.ok(await db.objects.get("tx-1"));
      assert.ok(await db.objects.get("tx-2"));
      assert.deepEqual(await db.blobIntents.list(), []);
    });
  });
}
