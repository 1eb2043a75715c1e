/**
 * CNRead.synchronize requests (table `cn_sync_tasks`) on SQLite and PostgreSQL: `prune-sync-requests` deletes
 * those older than a day whose synchronize task is finished, keeps recent and outstanding ones, and queues its
 * next run.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { NodeContext } from "../../../src/context/node-context.ts";
import type { Database } from "../../../src/db/types.ts";
import {
  PRUNE_SYNC_REQUESTS,
  runPruneSyncRequests,
  SYNC_REQUEST_RETENTION_MS,
} from "../../../src/federation/harvest/prune-requests.ts";
import { SYNCHRONIZE_TASK } from "../../../src/tasks/kinds.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { contextOver } from "../../helpers/nodes/federation-context.ts";

forEachDialect((_name, open) => {
  describe("synchronize request pruning", () => {
    let db: Database;
    let ctx: NodeContext;
    before(async () => {
      db = await open();
      ctx = await contextOver(db, { role: "cn" });
    });

    const requestedAt = async (pid: string, ageMs: number) => {
      await db.cn.queueSync(pid, "urn:node:MN1", "CN=mn1");
      await db.kysely
        .updateTable("cn_sync_tasks")
        .set({ queued_at: Date.now() - ageMs })
        .where("pid", "=", pid)
        .execute();
    };

    it("deletes finished requests older than a day, keeps recent and outstanding ones", async () => {
      const twoDays = 2 * SYNC_REQUEST_RETENTION_MS;
      await requestedAt("old_done", twoDays);
      await requestedAt("old_waiting", twoDays);
      await requestedAt("recent_done", 60_000);
      await ctx.tasks.enqueue(SYNCHRONIZE_TASK, "old_waiting", { nodeId: "urn:node:MN1" });
      await runPruneSyncRequests(ctx);
      assert.deepEqual(
        (await db.cn.syncTasks()).map((t) => t.pid),
        ["old_waiting", "recent_done"],
      );
      // The next run waits an hour; running again now changes nothing.
      assert.equal((await ctx.tasks.pending())[PRUNE_SYNC_REQUESTS], 1);
      const next = await db.kysely
        .selectFrom("tasks")
        .select("run_at")
        .where("kind", "=", PRUNE_SYNC_REQUESTS)
        .executeTakeFirstOrThrow();
      assert.ok(Number(next.run_at) > Date.now() + 30 * 60_000);
      assert.equal(
        await db.cn.pruneSyncRequests(new Date(Date.now() - SYNC_REQUEST_RETENTION_MS), SYNCHRONIZE_TASK),
        0,
      );
    });
  });
});
