/** The objects repository on SQLite and PostgreSQL: round trips, replacement, removal, series. */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { SeriesConflictError } from "../../../src/db/errors.ts";
import { DuplicateKeyError } from "../../../src/db/index.ts";
import type { Database, StoredObject } from "../../../src/db/types.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

forEachDialect((_name, open) => {
  describe("objects", () => {
    let db: Database;
    before(async () => {
      db = await open();
    });

    it("round-trips a full system metadata document to the millisecond", async () => {
      const object = storedObject("full-1", {
        serialVersion: 7,
        accessPolicy: [
          { subjects: ["CN=a", "CN=b"], permissions: ["read", "write"] },
          { subjects: ["public"], permissions: ["read"] },
          { subjects: ["CN=a"], permissions: ["changePermission"] },
        ],
        replicationPolicy: {
          replicationAllowed: true,
          numberReplicas: 2,
          preferredMemberNodes: ["urn:node:P1", "urn:node:P2"],
          blockedMemberNodes: ["urn:node:B"],
        },
        replicas: [
          {
            replicaMemberNode: "urn:node:R",
            replicationStatus: "completed",
            replicaVerified: new Date(1_700_000_000_123),
          },
          { replicaMemberNode: "urn:node:S", replicationStatus: "queued", replicaVerified: new Date(1) },
        ],
        obsoletes: "full-0",
        obsoletedBy: "full-2",
        archived: true,
        seriesId: "series-full",
        mediaType: { name: "text/csv", properties: [{ name: "charset", value: "UTF-8" }] },
        fileName: "data ü.csv",
        dateUploaded: new Date(1_700_000_000_001),
        dateSysMetadataModified: new Date(1_700_000_000_999),
      });
      object.digests.extra = { algorithm: "SHA-512", value: "f".repeat(128) };
      object.isReplica = true;
      object.sysmeta.size = 2 ** 40;
      object.digests.size = 2 ** 40;
      await db.objects.insert(object);
      assert.deepEqual(await db.objects.get("full-1"), object);
    });

    it("round-trips a minimal document, leaving absent fields absent", async () => {
      const object = storedObject("minimal-1", { accessPolicy: [] });
      const { submitter: _s, originMemberNode: _o, authoritativeMemberNode: _a, ...sysmeta } = object.sysmeta;
      const minimal: StoredObject = { ...object, sysmeta };
      await db.objects.insert(minimal);
      assert.deepEqual(await db.objects.get("minimal-1"), minimal);
      assert.equal(await db.objects.get("absent"), undefined);
    });

    it("refuses a PID already stored with DuplicateKeyError, inside a transaction too", async () => {
      await db.objects.insert(storedObject("dup-1"));
      await assert.rejects(
        db.objects.insert(storedObject("dup-1", { formatId: "other" })),
        DuplicateKeyError,
      );
      await assert.rejects(
        db.transaction((tx) => tx.objects.insert(storedObject("dup-1"))),
        DuplicateKeyError,
      );
      assert.equal((await db.objects.get("dup-1"))?.sysmeta.formatId, "text/csv");
    });

    it("replaces system metadata, access rows included", async () => {
      const object = storedObject("replace-1", {
        accessPolicy: [{ subjects: ["CN=old"], permissions: ["read"] }],
      });
      await db.objects.insert(object);
      const next = {
        ...object.sysmeta,
        serialVersion: 2,
        archived: true,
        accessPolicy: [{ subjects: ["CN=new"], permissions: ["write" as const] }],
        dateSysMetadataModified: new Date(1_800_000_000_000),
      };
      await db.objects.replaceSysmeta(next);
      const stored = await db.objects.get("replace-1");
      assert.deepEqual(stored?.sysmeta, next);
      assert.equal(stored?.contentKey, object.contentKey);
      const readable = async (subject: string) =>
        (await db.objects.list({ identifier: "replace-1", readableBy: [subject] }, 0, 10)).items.length;
      assert.equal(await readable("CN=old"), 0);
      assert.equal(await readable("CN=new"), 1);
      await assert.rejects(db.objects.replaceSysmeta({ ...next, identifier: "replace-absent" }));
    });

    it("removes objects with their access rows and counts references to content", async () => {
      const shared = "c".repeat(64);
      await db.objects.insert({ ...storedObject("remove-1"), contentKey: shared });
      await db.objects.insert({ ...storedObject("remove-2"), contentKey: shared });
      assert.equal(await db.objects.countByContentKey(shared), 2);
      await db.objects.remove("remove-1");
      await db.objects.remove("remove-absent");
      assert.equal(await db.objects.get("remove-1"), undefined);
      assert.equal(await db.objects.countByContentKey(shared), 1);
      assert.equal(await db.objects.isIdentifierInUse("remove-1"), false);
      // The PID can be used again, with new access rules.
      await db.objects.insert(storedObject("remove-1", { accessPolicy: [] }));
      const page = await db.objects.list({ identifier: "remove-1", readableBy: ["public"] }, 0, 10);
      assert.equal(page.total, 0);
    });

    it("finds the head of a series, its PIDs and whether identifiers are in use", async () => {
      await db.objects.insert(storedObject("s-1", { seriesId: "sid-x", obsoletedBy: "s-2" }, 1));
      await db.objects.insert(storedObject("s-2", { seriesId: "sid-x", obsoletes: "s-1" }, 2));
      // Newer, but obsoleted by a member of the same series: not the head.
      await db.objects.insert(storedObject("s-0", { seriesId: "sid-x", obsoletedBy: "s-1" }, 3));
      // Obsoleted by a PID outside the series: still a candidate.
      await db.objects.insert(storedObject("t-1", { seriesId: "sid-y", obsoletedBy: "elsewhere" }, 5));
      // A second chain cannot take the SID: refused inside the write, nothing stored.
      await assert.rejects(
        db.objects.insert(storedObject("t-2", { seriesId: "sid-y" }, 4)),
        SeriesConflictError,
      );
      assert.equal(await db.objects.get("t-2"), undefined);
      assert.equal(await db.objects.isIdentifierInUse("t-2"), false);
      assert.equal(await db.objects.headOfSeries("sid-x"), "s-2");
      assert.equal(await db.objects.headOfSeries("sid-y"), "t-1");
      assert.equal(await db.objects.headOfSeries("sid-none"), undefined);
      assert.deepEqual(await db.objects.pidsOfSeries("sid-x"), ["s-1", "s-2", "s-0"]);
      assert.deepEqual(await db.objects.pidsOfSeries("sid-none"), []);
      assert.equal(await db.objects.isIdentifierInUse("sid-y"), true);
      assert.equal(await db.objects.isIdentifierInUse("s-0"), true);
      assert.equal(await db.objects.isIdentifierInUse("SID-Y"), false);
      assert.equal(await db.objects.isIdentifierInUse("nothing"), false);
    });

    it("keeps blob intents and system-metadata refresh requests", async () => {
      await db.blobIntents.add("k1");
      await db.blobIntents.add("k1");
      await db.blobIntents.add("k2");
      assert.deepEqual((await db.blobIntents.list()).sort(), ["k1", "k2"]);
      await db.blobIntents.remove("k1");
      assert.deepEqual(await db.blobIntents.list(), ["k2"]);
      await db.sysmetaRefresh.request("p1", 2, new Date(5));
      await db.sysmetaRefresh.request("p1", 3, new Date(6));
      assert.deepEqual(await db.sysmetaRefresh.pending(), [
        { pid: "p1", serialVersion: 3, modified: new Date(6) },
      ]);
      await db.sysmetaRefresh.done("p1");
      assert.deepEqual(await db.sysmetaRefresh.pending(), []);
    });
  });
});
