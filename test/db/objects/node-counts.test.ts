/** The counts behind the metrics and the status page (`Database.counts`), on SQLite and PostgreSQL. */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { Database } from "../../../src/db/types.ts";
import { dateAt, storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

const replica = (node: string, status: "queued" | "completed" | "failed") => ({
  replicaMemberNode: node,
  replicationStatus: status,
  replicaVerified: dateAt(0),
});

forEachDialect((_name, open) => {
  describe("node counts", () => {
    let db: Database;
    before(async () => {
      db = await open();
    });

    it("counts nothing in an empty database", async () => {
      assert.deepEqual(await db.counts.stored(), {
        objects: 0,
        bytes: 0,
        replicaObjects: 0,
        replicaBytes: 0,
        contentBytes: 0,
      });
      assert.deepEqual(await db.counts.tasks(), []);
      assert.deepEqual(await db.counts.harvestPositions(), []);
      assert.deepEqual(await db.counts.replicaStates(), new Map());
      assert.equal(await db.counts.unindexed(), 0);
    });

    it("counts objects and bytes, own and replicas, replica states and objects without a search document", async () => {
      const own = storedObject("counts-own", {
        size: 1000,
        replicas: [replica("urn:node:A", "completed"), replica("urn:node:B", "queued")],
      });
      const second = storedObject("counts-second", {
        size: 24,
        replicas: [replica("urn:node:A", "completed")],
      });
      const held = { ...storedObject("counts-replica", { size: 500 }), isReplica: true };
      await db.objects.insertMany([own, second, held]);
      assert.deepEqual(await db.counts.stored(), {
        objects: 2,
        bytes: 1024,
        replicaObjects: 1,
        replicaBytes: 500,
        // The three rows name one content key: the store holds it once.
        contentBytes: 1000,
      });
      assert.deepEqual(
        await db.counts.replicaStates(),
        new Map([
          ["completed", 2],
          ["queued", 1],
        ]),
      );
      // Written straight to the objects table: no search document yet.
      assert.equal(await db.counts.unindexed(), 3);
    });

    it("counts tasks by kind and state, and lists harvest positions", async () => {
      const later = new Date(Date.now() + 3_600_000);
      await db.tasks.enqueue("harvest", "urn:node:A", {}, { runAt: later });
      await db.tasks.enqueue("harvest", "urn:node:B", {}, { runAt: later });
      await db.tasks.enqueue("synchronize", "pid-1", {});
      const [claimed] = await db.tasks.claim(["synchronize"], 1, 60_000);
      assert.ok(claimed);
      await db.tasks.fail(claimed, "broken", undefined);
      const tasks = (await db.counts.tasks()).sort((a, b) => a.kind.localeCompare(b.kind));
      assert.deepEqual(tasks, [
        // Due in an hour: scheduled, not waiting.
        { kind: "harvest", state: "scheduled", count: 2 },
        { kind: "synchronize", state: "dead", count: 1 },
      ]);
      await db.harvestProgress.save("urn:node:A", {
        harvestedTo: dateAt(5000),
        window: undefined,
        listParams: "window",
      });
      await db.harvestProgress.save("urn:node:B", {
        harvestedTo: undefined,
        window: undefined,
        listParams: "window",
      });
      const positions = await db.counts.harvestPositions();
      assert.deepEqual(
        positions.map((p) => [p.nodeId, p.harvestedTo?.getTime()]),
        [
          ["urn:node:A", dateAt(5000).getTime()],
          ["urn:node:B", undefined],
        ],
      );
      assert.ok(positions.every((p) => Math.abs(p.updatedAt.getTime() - Date.now()) < 600_000));
    });
  });
});
