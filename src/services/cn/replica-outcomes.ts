/**
 * What the CN does when a replica's state changes through the API: a completed replica ends the node's run of
 * failures; a failed or invalidated one counts against the node and has the object planned again (on another
 * node). Replication policy and replica list changes have the object planned again too.
 */

import type { NodeContext } from "../../context/node-context.ts";
import type { TaskQueue } from "../../db/types.ts";
import type { ObjectChange } from "../../objects/changes.ts";
import type { ObjectTransaction } from "../../objects/write.ts";
import { REPLICATE_PLAN } from "../../tasks/kinds.ts";
import type { ReplicationStatus } from "../../types/sysmeta.ts";

/**
 * The CN's subscriber to object writes (src/objects/): a change that asked for it (`tx.replan`: a new or
 * changed replication policy, a replica list shortened) has the object's replicas planned, by a task enqueued
 * inside the write's transaction.
 */
export async function planReplicasOfChanges(
  ctx: Pick<NodeContext, "config">,
  tasks: TaskQueue,
  changes: readonly ObjectChange[],
): Promise<void> {
  if (ctx.config.role !== "cn") return;
  for (const change of changes) {
    if (change.kind === "removed" || !change.replan) continue;
    const pid = change.kind === "created" ? change.object.sysmeta.identifier : change.sysmeta.identifier;
    await tasks.enqueue(REPLICATE_PLAN, pid, { pid });
  }
}

/** Queue the planning of `pid`'s replicas (a failure, the periodic scan). */
export async function scheduleReplication(ctx: NodeContext, pid: string): Promise<void> {
  if (ctx.config.role !== "cn") return;
  await ctx.tasks.enqueue(REPLICATE_PLAN, pid, { pid });
}

/**
 * The CN's bookkeeping of a replica's new status, inside the transaction that writes it into the replica list
 * (`changeReplicaList`'s `alongside`), so that a crash right after the commit loses neither the node's record nor
 * the planning of the object's replicas anew.
 */
export async function replicationStatusReported(
  ctx: NodeContext,
  tx: ObjectTransaction,
  pid: string,
  nodeId: string,
  status: ReplicationStatus,
  why = `the replica of "${pid}" was reported ${status}`,
): Promise<void> {
  if (ctx.config.role !== "cn") return;
  if (status === "completed") await tx.replicaNodes.recordCompletion(nodeId);
  if (status === "failed" || status === "invalidated") {
    await tx.replicaNodes.recordFailure(nodeId, why);
    tx.replan(pid);
  }
}
