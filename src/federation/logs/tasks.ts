/**
 * Log aggregation as tasks on the CN. `log-aggregation` runs periodically (every `logAggregationSeconds`): it
 * queues a `node-log` task for each approved Member Node and queues itself again. `node-log` reads that node's
 * log from where the last run stopped; a long log is read in slices, each a task of its own.
 */

import type { NodeContext } from "../../context/node-context.ts";
import { approvedNode, approvedNodes } from "../../services/cn/nodes.ts";
import type { Task } from "../../tasks/worker.ts";
import { clientFor } from "../client.ts";
import { versionFor } from "../propagation/deliver.ts";
import { harvestNodeLog } from "./harvest-node.ts";

export const LOG_AGGREGATION = "log-aggregation";
export const NODE_LOG = "node-log";

export interface NodeLogPayload {
  nodeId: string;
}

export async function runLogAggregation(ctx: NodeContext): Promise<void> {
  for (const node of await approvedNodes(ctx)) {
    if (node.type !== "mn") continue;
    const payload: NodeLogPayload = { nodeId: node.identifier };
    await ctx.tasks.enqueue(NODE_LOG, node.identifier, payload);
  }
  const runAt = new Date(Date.now() + ctx.config.logAggregationSeconds * 1000);
  await ctx.tasks.enqueue(LOG_AGGREGATION, "", {}, { runAt });
}

export async function runNodeLog(ctx: NodeContext, task: Task): Promise<void> {
  const { nodeId } = task.payload as NodeLogPayload;
  const node = await approvedNode(ctx, nodeId);
  if (node?.type !== "mn") return;
  const source = clientFor(ctx, node.baseURL, { version: versionFor(node, "MNCore") });
  const outcome = await harvestNodeLog(ctx, nodeId, source);
  if (!outcome.complete) await ctx.tasks.enqueue(NODE_LOG, nodeId, { nodeId } satisfies NodeLogPayload);
}

/** A CN starts aggregating when it starts (a run already waiting keeps its time). */
export async function startLogAggregation(ctx: NodeContext): Promise<void> {
  if (ctx.config.role !== "cn" || ctx.config.logAggregationSeconds <= 0) return;
  await ctx.tasks.enqueue(LOG_AGGREGATION, "", {});
}
