/**
 * A Member Node answers pings again after being down: its harvest is due now, and each replica on it that
 * failed while it was down (status failed, last changed after its last successful ping before the outage) is
 * dropped from the replica list and the object planned again, so that the node is asked at once rather than
 * after `replicationRequestTimeout` (the planner's wait before asking a node that failed an object again); and a
 * replication scan runs now, for objects short of replicas because it could not be chosen while down.
 */

import type { NodeContext } from "../../context/node-context.ts";
import { scheduleReplication } from "../../services/cn/replica-outcomes.ts";
import { changeReplicaList } from "../../services/cn/replication.ts";
import { HARVEST_TASK, REPLICATION_SCAN } from "../../tasks/kinds.ts";
import { forEachObject } from "../replication/scan.ts";

export async function nodeReturned(
  ctx: NodeContext,
  nodeId: string,
  upUntil: Date | undefined,
): Promise<number> {
  await ctx.tasks.enqueue(HARVEST_TASK, nodeId, null);
  // Objects left short of replicas while it was down (it was not a target then) are found by a scan, now.
  await ctx.tasks.enqueue(REPLICATION_SCAN, REPLICATION_SCAN, null);
  const since = upUntil?.getTime() ?? 0;
  const failedMeanwhile = (
    replicas: { replicaMemberNode: string; replicationStatus: string; replicaVerified: Date }[],
  ) =>
    replicas.some(
      (r) =>
        r.replicaMemberNode === nodeId &&
        r.replicationStatus === "failed" &&
        r.replicaVerified.getTime() >= since,
    );
  let retried = 0;
  await forEachObject(ctx, "withReplicas", async (object) => {
    if (!failedMeanwhile(object.sysmeta.replicas)) return;
    const pid = object.sysmeta.identifier;
    let replanned = false;
    await changeReplicaList(
      ctx,
      pid,
      (current) =>
        failedMeanwhile(current.replicas)
          ? current.replicas.filter((r) => r.replicaMemberNode !== nodeId)
          : undefined,
      async (tx) => {
        tx.replan(pid); // planned by a task committed with the shortened list
        replanned = true;
      },
    );
    if (!replanned) await scheduleReplication(ctx, pid);
    retried++;
  });
  if (retried > 0)
    ctx.log.info(
      { node: nodeId, replicas: retried },
      `${nodeId}: ${retried} replicas that failed while it was down are planned again`,
    );
  return retried;
}
