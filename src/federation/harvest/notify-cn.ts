/**
 * The Member Node's subscriber to object writes (src/objects/): "after a create or update an MN calls
 * CN.synchronize(pid)", for the changes its own clients made, when the node has a CN and `notifyCn` is on. The
 * notify-cn task is enqueued inside the write's transaction: a crash after the commit loses no notice.
 */

import type { NodeContext } from "../../context/node-context.ts";
import type { TaskQueue } from "../../db/types.ts";
import { changedPid, type ObjectChange } from "../../objects/changes.ts";
import { NOTIFY_CN_TASK } from "../../tasks/kinds.ts";

export async function notifyCnOfChanges(
  ctx: Pick<NodeContext, "config">,
  tasks: TaskQueue,
  changes: readonly ObjectChange[],
): Promise<void> {
  if (ctx.config.role === "cn" || !ctx.config.cnBaseUrl || !ctx.config.notifyCn) return;
  for (const change of changes) {
    // A deletion is the CN's or an administrator's doing; what the CN made or sent needs no notice back.
    if (change.kind === "removed" || change.origin !== "client") continue;
    await tasks.enqueue(NOTIFY_CN_TASK, changedPid(change), null);
  }
}
