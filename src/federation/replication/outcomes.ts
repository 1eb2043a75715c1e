/**
 * What the CN does when a replica's state changes through the API: a completed replica ends the node's run of
 * failures; a failed or invalidated one counts against the node and has the object planned again (on another
 * node). Replication policy and replica list changes have the object planned again too.
 */
import type { NodeContext } from "../../services/context.ts";
import type { ReplicationStatus } from "../../types/sysmeta.ts";
import { REPLICATE_PLAN } from "./kinds.ts";

/** Queue the planning of `pid`'s replicas (after synchronization, a policy change, a failure). */
export async function scheduleReplication(ctx: NodeContext, pid: string): Promise<void> {
  if (ctx.config.role !== "cn") return;
  await ctx.tasks.enqueue(REPLICATE_PLAN, pid, { pid });
}

export async function replicationStatusReported(
  ctx: NodeContext,
  pid: string,
  nodeId: string,
  status: ReplicationStatus,
  why = `the replica of "${pid}" was reported ${status}`,
): Promise<void> {
  if (ctx.config.role !== "cn") return;
  if (status === "completed") await ctx.db.replicaNodes.recordCompletion(nodeId);
  if (status === "failed" || status === "invalidated") {
    await ctx.db.replicaNodes.recordFailure(nodeId, why);
    await scheduleReplication(ctx, pid);
  }
}
