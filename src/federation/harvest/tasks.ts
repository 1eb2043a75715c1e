/**
 * The harvester's task handlers. `harvest` (key: node id) harvests one Member Node and enqueues its next run
 * from the node's schedule; `synchronize` (key: PID) fetches one object from its Member Node at once;
 * `notify-cn` (key: PID, on a Member Node) calls CNRead.synchronize after a local change.
 */

import type { NodeContext } from "../../context/node-context.ts";
import { D1Error } from "../../errors/exceptions.ts";
import { scheduleHarvest } from "../../services/cn/harvest-requests.ts";
import { approvedNode } from "../../services/cn/nodes.ts";
import { PermanentTaskError } from "../../tasks/worker.ts";
import { clientFor } from "../client.ts";
import { versionFor } from "../propagation/deliver.ts";
import type { FederationTaskHandler } from "../task-handler.ts";
import { harvestNode } from "./harvest.ts";
import { synchronizeObject } from "./object.ts";
import { harvestableNode, harvestableNodes } from "./registry.ts";

/** Runs of one harvest before it is given up until the next scheduled one (the position is kept). */
const HARVEST_ATTEMPTS = 5;

export const harvestTask: FederationTaskHandler = async (ctx, task) => {
  const node = await harvestableNode(ctx, task.key);
  if (!node) return; // no longer approved, synchronized or up: approval or an update schedules it again
  try {
    // A run whose lease was lost stops before its next page: another worker has the task (and the position).
    await harvestNode(ctx, node, task.signal ? { signal: task.signal } : {});
  } catch (error) {
    if (task.attempts < HARVEST_ATTEMPTS) throw error;
    await scheduleHarvest(ctx.tasks, node);
    throw new PermanentTaskError(
      `harvest of ${node.identifier} failed ${task.attempts} times; next at its scheduled time: ${(error as Error).message}`,
    );
  }
  await scheduleHarvest(ctx.tasks, node);
};

export const synchronizeTask: FederationTaskHandler = async (ctx, task) => {
  const pid = task.key;
  const requestedBy = (task.payload as { nodeId?: string } | null)?.nodeId;
  // Updates come from the authoritative Member Node; new objects from the node that asked.
  const existing = await ctx.db.objects.get(pid);
  const nodeId = existing?.sysmeta.authoritativeMemberNode ?? requestedBy;
  const node = nodeId ? await approvedNode(ctx, nodeId) : undefined;
  if (node?.type !== "mn") {
    throw new PermanentTaskError(
      `No approved Member Node to synchronize "${pid}" from (${nodeId ?? "none"}).`,
    );
  }
  const client = clientFor(ctx, node.baseURL, { version: versionFor(node) });
  await synchronizeObject(ctx, node.identifier, client, pid);
};

export const notifyCnTask: FederationTaskHandler = async (ctx, task) => {
  const cn = ctx.config.cnBaseUrl;
  if (!cn) return;
  try {
    await clientFor(ctx, cn).synchronize(task.key);
  } catch (error) {
    // The CN refused (not registered yet, not authoritative): asking again would not help; harvests catch up.
    if (error instanceof D1Error && error.exception !== "ServiceFailure") {
      throw new PermanentTaskError(
        `CNRead.synchronize("${task.key}"): ${error.exception}: ${error.description}`,
      );
    }
    throw error;
  }
};

/** CN start-up: every harvested Member Node gets its next harvest (a waiting earlier one is kept). */
export async function scheduleHarvests(ctx: NodeContext): Promise<void> {
  if (ctx.config.role !== "cn") return;
  for (const node of await harvestableNodes(ctx)) await scheduleHarvest(ctx.tasks, node);
}
