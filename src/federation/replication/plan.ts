/**
 * The CN's replication planner for one object: requests left pending past the timeout become failed (and count
 * against their node), then new targets are chosen (targets.ts) and recorded as queued in the replica list, in
 * one conditional write of the authoritative system metadata; in the same transaction, the stale nodes' failures
 * are recorded and each target gets a replicate-request task, so that a crash after the commit loses none.
 */

import type { NodeContext } from "../../context/node-context.ts";
import { approvedNodes } from "../../services/cn/nodes.ts";
import { changeReplicaList } from "../../services/cn/replication.ts";
import { REPLICATE_REQUEST } from "../../tasks/kinds.ts";
import type { Replica } from "../../types/sysmeta.ts";
import { chooseTargets, staleRequests, type TargetChoice } from "./targets.ts";

/** The task key of one replicate request (node ids hold no spaces, so the pair is unambiguous). */
export const requestKey = (pid: string, nodeId: string) => `${nodeId} ${pid}`;

export interface Plan {
  /** Pending replicas failed for taking longer than the timeout. */
  stale: string[];
  targets: TargetChoice[];
}

export async function planReplication(ctx: NodeContext, pid: string): Promise<Plan> {
  const nodes = await approvedNodes(ctx);
  const records = await ctx.db.replicaNodes.all();
  const timeoutMs = ctx.config.replicationRequestTimeout * 1000;
  const timeout = ctx.config.replicationRequestTimeout;
  let plan: Plan = { stale: [], targets: [] };
  await changeReplicaList(
    ctx,
    pid,
    (current) => {
      const now = new Date();
      const stale = new Set(staleRequests(current, now, timeoutMs).map((r) => r.replicaMemberNode));
      const replicas = current.replicas.map(
        (r): Replica =>
          stale.has(r.replicaMemberNode) ? { ...r, replicationStatus: "failed", replicaVerified: now } : r,
      );
      const targets = chooseTargets({
        sysmeta: { ...current, replicas },
        nodes,
        records,
        now,
        retryFailedAfterMs: timeoutMs,
      });
      plan = { stale: [...stale], targets };
      if (stale.size === 0 && targets.length === 0) return undefined;
      const chosen = new Set(targets.map((t) => t.nodeId));
      return [
        ...replicas.filter((r) => !chosen.has(r.replicaMemberNode)),
        ...targets.map(
          (t): Replica => ({
            replicaMemberNode: t.nodeId,
            replicationStatus: "queued",
            replicaVerified: now,
          }),
        ),
      ];
    },
    async (tx) => {
      for (const nodeId of plan.stale) {
        await tx.replicaNodes.recordFailure(
          nodeId,
          `the replica of "${pid}" was not completed within ${timeout} s`,
        );
      }
      for (const { nodeId } of plan.targets) {
        await tx.tasks.enqueue(REPLICATE_REQUEST, requestKey(pid, nodeId), { pid, nodeId });
      }
    },
  );
  return plan;
}
