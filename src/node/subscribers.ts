/**
 * What follows a change to an object, registered in one place: the write core (src/objects/) calls these for
 * every write. Inside the write's transaction (durable, from the task table as outbox): notify the CN (MN),
 * announce to the holders, plan replicas (CN), register DOIs at DataCite (MN). After the commit: index it.
 */

import type { NodeContext } from "../context/node-context.ts";
import type { TaskQueue } from "../db/types.ts";
import { queueDoiRegistrations } from "../doi/outbox.ts";
import { notifyCnOfChanges } from "../federation/harvest/notify-cn.ts";
import { announceSysmetaChanges } from "../federation/propagation/announce.ts";
import type { ChangeSubscribers, ObjectChange } from "../objects/changes.ts";
import { bytesToHold, coalescedIndexing, WritesUnderWay } from "../search/index.ts";
import { planReplicasOfChanges } from "../services/cn/replica-outcomes.ts";

/** A node's parts made its context, with what follows its writes registered on it. */
export function withChangeSubscribers(parts: Omit<NodeContext, "changes">): NodeContext {
  const ctx = parts as NodeContext;
  ctx.changes = changeSubscribers(ctx);
  return ctx;
}

export function changeSubscribers(ctx: NodeContext): ChangeSubscribers {
  const underWay = new WritesUnderWay();
  return {
    recorded: (tx, changes) => queueFollowUps(ctx, tx.tasks, changes),
    committed: coalescedIndexing(ctx, underWay),
    starting: () => underWay.start(),
    bytesToHold,
  };
}

/**
 * The durable part alone, on the queue of the transaction that makes `changes`: also what `d1node load`, which
 * writes its rows in bulk beside the core, runs for each batch it loads (docs/architecture.md).
 */
export async function queueFollowUps(
  ctx: Pick<NodeContext, "config"> & Partial<Pick<NodeContext, "store">>,
  tasks: TaskQueue,
  changes: readonly ObjectChange[],
): Promise<void> {
  await notifyCnOfChanges(ctx, tasks, changes);
  await announceSysmetaChanges(ctx, tasks, changes);
  await planReplicasOfChanges(ctx, tasks, changes);
  await queueDoiRegistrations(ctx, tasks, changes);
}
