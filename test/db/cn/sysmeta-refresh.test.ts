/**
 * The Member Node's refresh from the CN copy on SQLite and PostgreSQL (a fake CN answering getSystemMetadata):
 * a newer serialVersion replaces the fields the CN decides and reaches the search index; an older or equal one
 * changes nothing; a copy describing other bytes is refused.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { NodeContext } from "../../../src/context/node-context.ts";
import type { Database } from "../../../src/db/types.ts";
import { ForeignSysmetaError, refreshFromCn } from "../../../src/federation/propagation/refresh.ts";
import { writeObjects } from "../../../src/objects/write.ts";
import { indexNewObject } from "../../../src/search/indexing/hooks.ts";
import { RetryLater } from "../../../src/tasks/failure-log.ts";
import type { SystemMetadata } from "../../../src/types/sysmeta.ts";
import { dateAt, storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { contextOver } from "../../helpers/nodes/federation-context.ts";

const fakeCn = (copies: Map<string, SystemMetadata>) => ({
  calls: 0,
  async getSystemMetadata(pid: string) {
    this.calls += 1;
    const copy = copies.get(pid);
    if (!copy) throw new Error(`no ${pid}`);
    return structuredClone(copy);
  },
});

async function indexedDoc(ctx: NodeContext, pid: string): Promise<Record<string, unknown>> {
  const row = await ctx.db.kysely
    .selectFrom("search_docs")
    .select("doc")
    .where("pid", "=", pid)
    .executeTakeFirst();
  return JSON.parse(row?.doc ?? "{}");
}

forEachDialect((_name, open) => {
  describe("system metadata refresh", () => {
    let db: Database;
    let ctx: NodeContext;
    before(async () => {
      db = await open();
      ctx = await contextOver(db, { nodeId: "urn:node:TESTMN" });
      for (const pid of ["rf_a", "rf_b", "rf_c", "rf_race"]) {
        await db.objects.insert(storedObject(pid, { serialVersion: 3, accessPolicy: [] }));
        await indexNewObject(ctx, pid);
      }
      await db.objects.insert({ ...storedObject("rf_replica", { serialVersion: 2 }), isReplica: true });
    });

    it("takes a newer copy: access, rights holder, replicas, archived, serialVersion and modified date", async () => {
      const local = (await db.objects.get("rf_a"))?.sysmeta as SystemMetadata;
      const cnCopy: SystemMetadata = {
        ...local,
        serialVersion: 5,
        dateSysMetadataModified: dateAt(60_000),
        rightsHolder: "CN=new owner",
        accessPolicy: [{ subjects: ["CN=friend"], permissions: ["read"] }],
        replicationPolicy: {
          replicationAllowed: true,
          numberReplicas: 2,
          preferredMemberNodes: [],
          blockedMemberNodes: [],
        },
        replicas: [
          { replicaMemberNode: "urn:node:OTHER", replicationStatus: "completed", replicaVerified: dateAt(1) },
        ],
        archived: true,
        submitter: "CN=someone else",
      };
      const outcome = await refreshFromCn(ctx, "rf_a", fakeCn(new Map([["rf_a", cnCopy]])));
      assert.equal(outcome, "updated");
      const now = (await db.objects.get("rf_a"))?.sysmeta;
      assert.equal(now?.serialVersion, 5);
      assert.equal(now?.dateSysMetadataModified?.getTime(), dateAt(60_000).getTime());
      assert.equal(now?.rightsHolder, "CN=new owner");
      assert.deepEqual(now?.accessPolicy, cnCopy.accessPolicy);
      assert.deepEqual(
        now?.replicas.map((r) => r.replicaMemberNode),
        ["urn:node:OTHER"],
      );
      assert.equal(now?.replicationPolicy?.replicationAllowed, true);
      assert.equal(now?.archived, true);
      assert.equal(now?.submitter, local.submitter, "the submitter is fixed for the object's life");
      const doc = await indexedDoc(ctx, "rf_a");
      assert.deepEqual(doc.readPermission, ["CN=friend"]);
      assert.equal(doc.rightsHolder, "CN=new owner");
      assert.equal(doc.archived, true);
    });

    it("changes nothing for an older or equal serialVersion", async () => {
      const local = (await db.objects.get("rf_b"))?.sysmeta as SystemMetadata;
      for (const serialVersion of [2, 3]) {
        const stale = { ...local, serialVersion, rightsHolder: "CN=stale" };
        assert.equal(await refreshFromCn(ctx, "rf_b", fakeCn(new Map([["rf_b", stale]]))), "current");
      }
      assert.deepEqual((await db.objects.get("rf_b"))?.sysmeta, local);
    });

    it("refreshes objects held as replicas, which stay replicas", async () => {
      const local = (await db.objects.get("rf_replica"))?.sysmeta as SystemMetadata;
      const cnCopy = {
        ...local,
        serialVersion: 4,
        accessPolicy: [{ subjects: ["CN=x"], permissions: ["write" as const] }],
      };
      assert.equal(
        await refreshFromCn(ctx, "rf_replica", fakeCn(new Map([["rf_replica", cnCopy]]))),
        "updated",
      );
      const now = await db.objects.get("rf_replica");
      assert.equal(now?.isReplica, true);
      assert.equal(now?.sysmeta.serialVersion, 4);
      assert.deepEqual(now?.sysmeta.accessPolicy, cnCopy.accessPolicy);
    });

    it("refuses a copy with another checksum or size, and ignores objects not held", async () => {
      const local = (await db.objects.get("rf_c"))?.sysmeta as SystemMetadata;
      const foreign = {
        ...local,
        serialVersion: 9,
        checksum: { algorithm: local.checksum.algorithm, value: "0" },
      };
      await assert.rejects(
        refreshFromCn(ctx, "rf_c", fakeCn(new Map([["rf_c", foreign]]))),
        ForeignSysmetaError,
      );
      assert.equal((await db.objects.get("rf_c"))?.sysmeta.serialVersion, 3);
      const cn = fakeCn(new Map());
      assert.equal(await refreshFromCn(ctx, "rf_unknown", cn), "absent");
      assert.equal(cn.calls, 0);
    });
    it("a local change during the refresh is an expected retry (RetryLater), not a bug", async () => {
      const local = (await db.objects.get("rf_race"))?.sysmeta as SystemMetadata;
      const racing = {
        async getSystemMetadata() {
          // Changed here between the read and the write: the refresh's compare-and-set loses.
          await writeObjects(ctx, "client", (tx) =>
            tx.objects.replaceSysmeta({ ...local, serialVersion: 4 }, local.serialVersion),
          );
          return { ...local, serialVersion: 7 };
        },
      };
      await assert.rejects(refreshFromCn(ctx, "rf_race", racing), (error: unknown) => {
        assert.ok(error instanceof RetryLater);
        assert.match(error.message, /"rf_race" changed during its refresh; retrying/);
        return true;
      });
    });
  });
});
