/**
 * What follows a change to an object, registered in one place: the write core (src/objects/) calls these for
 * every write. Inside the write's transaction (durable, from the task table as outbox): notify the CN (MN),
 * announce to the holders, plan replicas (CN). After the commit: index it.
 */
import { notifyCnOfChanges } from "../federation/harvest/notify-cn.ts";
import { announceSysmetaChanges } from "../federation/propagation/announce.ts";
import type { ChangeSubscribers } from "../objects/changes.ts";
import { indexChanges } from "../search/hooks.ts";
import { planReplicasOfChanges } from "../services/cn/replica-outcomes.ts";
import type { NodeContext } from "../services/context.ts";

/** A node's parts made its context, with what follows its writes registered on it. */
export function withChangeSubscribers(parts: Omit<NodeContext, "changes">): NodeContext {
  const ctx = parts as NodeContext;
  ctx.changes = changeSubscribers(ctx);
  return ctx;
}

export function changeSubscribers(ctx: NodeContext): ChangeSubscribers {
  return {
    async recorded(tx, changes) {
      await notifyCnOfChanges(ctx, tx.tasks, changes);
      await announceSysmetaChanges(ctx, tx.tasks, changes);
      await planReplicasOfChanges(ctx, tx.tasks, changes);
    },
    committed: (changes) => indexChanges(ctx, changes),
  };
}
