/**
 * The CN records each CNRead.synchronize request (table `cn_sync_tasks`, who asked for what); the work itself is
 * a `synchronize` task. `prune-sync-requests` runs every hour and deletes the records older than a day whose
 * task is finished (done, or given up), so the table holds recent and outstanding requests only.
 */
import type { NodeContext } from "../../context/node-context.ts";
import { SYNCHRONIZE_TASK } from "../../tasks/kinds.ts";

export const PRUNE_SYNC_REQUESTS = "prune-sync-requests";

/** How long a finished request stays recorded. */
export const SYNC_REQUEST_RETENTION_MS = 24 * 60 * 60_000;
const PRUNE_EVERY_MS = 60 * 60_000;

export async function runPruneSyncRequests(ctx: NodeContext): Promise<void> {
  await ctx.db.cn.pruneSyncRequests(new Date(Date.now() - SYNC_REQUEST_RETENTION_MS), SYNCHRONIZE_TASK);
  await ctx.tasks.enqueue(PRUNE_SYNC_REQUESTS, "", {}, { runAt: new Date(Date.now() + PRUNE_EVERY_MS) });
}

/** A CN starts pruning when it starts (a run already waiting keeps its time). */
export async function startPruningSyncRequests(ctx: NodeContext): Promise<void> {
  if (ctx.config.role !== "cn") return;
  await ctx.tasks.enqueue(PRUNE_SYNC_REQUESTS, "", {});
}
