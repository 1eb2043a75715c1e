/**
 * The harvester's tasks as the CN's services and the harvester enqueue them (no dependencies beyond the queue,
 * so that request handlers and the registry schedule work without importing the harvester).
 */

import type { TaskQueue } from "../../db/types.ts";
import { HARVEST_TASK, SYNCHRONIZE_TASK } from "../../tasks/kinds.ts";
import { nextRun } from "../../tasks/schedule.ts";
import type { Node } from "../../types/node.ts";

/** Whether the CN harvests this node: "every approved, synchronize=true, up MN" (approval is the caller's). */
export const isHarvested = (node: Node) => node.type === "mn" && node.synchronize && node.state === "up";

/**
 * The node's next harvest, at the next time its schedule names (key: the node id). A waiting harvest at an
 * earlier time is kept. Returns when it runs; undefined when the node has no usable schedule.
 */
export async function scheduleHarvest(
  tasks: TaskQueue,
  node: Node,
  after = new Date(),
): Promise<Date | undefined> {
  const schedule = node.synchronization?.schedule;
  if (!schedule || !isHarvested(node)) return undefined;
  let at: Date | undefined;
  try {
    at = nextRun(schedule, after);
  } catch {
    return undefined; // a schedule that is not a crontab entry: the node is not harvested until it is fixed
  }
  if (at) await tasks.enqueue(HARVEST_TASK, node.identifier, null, { runAt: at });
  return at;
}

/** CNRead.synchronize: fetch `pid` from `nodeId` now, ahead of scheduled harvests. */
export function requestSynchronization(tasks: TaskQueue, pid: string, nodeId: string): Promise<void> {
  return tasks.enqueue(SYNCHRONIZE_TASK, pid, { nodeId });
}
