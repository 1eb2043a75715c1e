/**
 * The CN's writes of one object's system metadata racing each other (on PostgreSQL through two database
 * handles, as two worker processes would have): replica status changes and a change without a serialVersion each read again when the
 * other came first, so none is lost; every write gets its own serialVersion. Both dialects.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resolveConfig } from "../../../src/config/config.ts";
import type { NodeContext } from "../../../src/context/node-context.ts";
import type { Database } from "../../../src/db/types.ts";
import { changeSubscribers } from "../../../src/node/subscribers.ts";
import { openSearchIndex } from "../../../src/search/search-index.ts";
import { changeAtVersion } from "../../../src/services/cn/core.ts";
import { changeReplicaList } from "../../../src/services/cn/replication.ts";
import type { Replica } from "../../../src/types/sysmeta.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

const config = resolveConfig({ role: "cn", nodeId: "urn:node:RACECN" });

function contextOn(db: Database): NodeContext {
  const ctx = {
    config,
    db,
    tasks: db.tasks,
    taskHandlers: {},
    search: openSearchIndex(db),
  } as unknown as NodeContext;
  ctx.changes = changeSubscribers(ctx);
  return ctx;
}

forEachDialect((name, open) => {
  describe("replica list writes", () => {
    it("racing replica reports and a sysmeta change: all kept", async () => {
      const first = await open();
      // PostgreSQL: a second handle, as another worker process; SQLite belongs to one process (one handle).
      const second = name === "postgres" ? await open(first) : first;
      const a = contextOn(first);
      const b = contextOn(second);
      const pid = "race-replicas";
      await first.objects.insert(storedObject(pid));
      const rounds = 8;
      for (let i = 0; i < rounds; i++) {
        const replica = (n: number): Replica => ({
          replicaMemberNode: `urn:node:MN${n}`,
          replicationStatus: "completed",
          replicaVerified: new Date(),
        });
        await Promise.all([
          changeReplicaList(a, pid, (current) => [...current.replicas, replica(2 * i)]),
          changeReplicaList(b, pid, (current) => [...current.replicas, replica(2 * i + 1)]),
          changeAtVersion(i % 2 === 0 ? a : b, pid, undefined, () => ({ rightsHolder: `CN=holder ${i}` })),
        ]);
      }
      const stored = await first.objects.get(pid);
      assert.equal(stored?.sysmeta.replicas.length, 2 * rounds);
      assert.equal(stored?.sysmeta.rightsHolder, `CN=holder ${rounds - 1}`);
      assert.equal(stored?.sysmeta.serialVersion, 1 + 3 * rounds);
    });

    it("per-node records: failures in a row end with a completion; totals kept", async () => {
      const db = await open();
      await db.replicaNodes.recordFailure("urn:node:X", "first");
      await db.replicaNodes.recordFailure("urn:node:X", "second");
      let record = (await db.replicaNodes.all()).get("urn:node:X");
      assert.deepEqual(
        [record?.consecutiveFailures, record?.failures, record?.lastFailure],
        [2, 2, "second"],
      );
      await db.replicaNodes.recordCompletion("urn:node:X");
      record = (await db.replicaNodes.all()).get("urn:node:X");
      assert.deepEqual([record?.consecutiveFailures, record?.failures, record?.completions], [0, 2, 1]);
    });
  });
});
