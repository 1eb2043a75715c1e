/** The replication task handlers (registered in src/node/task-handlers.ts) and the CN's periodic passes. */
import type { NodeContext } from "../../context/node-context.ts";
import {
  PULL_REPLICA,
  REPLICA_AUDIT,
  REPLICATE_PLAN,
  REPLICATE_REQUEST,
  REPLICATION_SCAN,
  REPORT_REPLICA_STATUS,
} from "../../tasks/kinds.ts";
import type { Task } from "../../tasks/worker.ts";
import type { FederationTaskHandlers } from "../task-handler.ts";
import { auditReplicas } from "./audit.ts";
import { planReplication } from "./plan.ts";
import { pullReplicaTask } from "./pull.ts";
import { reportReplicaStatusTask } from "./report.ts";
import { requestReplica } from "./request.ts";
import { scanForReplication } from "./scan.ts";

const onCn =
  (work: (ctx: NodeContext, task: Task) => Promise<unknown>) =>
  async (ctx: NodeContext, task: Task): Promise<void> => {
    if (ctx.config.role === "cn") await work(ctx, task);
  };

/** The next run of a periodic pass, `seconds` from now (none when 0). */
async function again(ctx: NodeContext, kind: string, seconds: number): Promise<void> {
  if (seconds > 0)
    await ctx.tasks.enqueue(kind, kind, null, { runAt: new Date(Date.now() + seconds * 1000) });
}

export const replicationTaskHandlers: FederationTaskHandlers = {
  [PULL_REPLICA]: pullReplicaTask,
  [REPORT_REPLICA_STATUS]: reportReplicaStatusTask,
  [REPLICATE_PLAN]: onCn((ctx, task) => planReplication(ctx, (task.payload as { pid: string }).pid)),
  [REPLICATE_REQUEST]: onCn((ctx, task) => {
    const { pid, nodeId } = task.payload as { pid: string; nodeId: string };
    return requestReplica(ctx, pid, nodeId);
  }),
  [REPLICATION_SCAN]: onCn(async (ctx) => {
    await scanForReplication(ctx);
    await again(ctx, REPLICATION_SCAN, ctx.config.replicationScanInterval);
  }),
  [REPLICA_AUDIT]: onCn(async (ctx) => {
    await auditReplicas(ctx);
    await again(ctx, REPLICA_AUDIT, ctx.config.replicaAuditInterval);
  }),
};

/** On a CN: a scan now (requests may have gone stale while it was down), the first audit one interval away. */
export async function startReplicationPasses(ctx: NodeContext): Promise<void> {
  if (ctx.config.role !== "cn") return;
  if (ctx.config.replicationScanInterval > 0)
    await ctx.tasks.enqueue(REPLICATION_SCAN, REPLICATION_SCAN, null);
  await again(ctx, REPLICA_AUDIT, ctx.config.replicaAuditInterval);
}
