/**
 * The Coordinating Node's subscriber to object writes (src/objects/): each change of system metadata queues one
 * `sysmeta-changed` task per Member Node holding the object, inside the write's transaction, so that a crash
 * after the commit loses no announcement. Nothing is sent in the request; the tasks deliver (and retry) later.
 */

import type { NodeContext } from "../../context/node-context.ts";
import type { TaskQueue } from "../../db/types.ts";
import type { ObjectChange } from "../../objects/changes.ts";
import { changeKey, SYSMETA_CHANGED, type SysmetaChangedPayload } from "../../tasks/kinds.ts";
import { nodesHolding } from "./holders.ts";

export async function announceSysmetaChanges(
  ctx: Pick<NodeContext, "config">,
  tasks: TaskQueue,
  changes: readonly ObjectChange[],
): Promise<void> {
  if (ctx.config.role !== "cn") return;
  for (const change of changes) {
    if (change.kind !== "sysmeta") continue;
    const pid = change.sysmeta.identifier;
    for (const nodeId of nodesHolding(change.sysmeta, ctx.config.nodeId)) {
      const payload: SysmetaChangedPayload = { pid, nodeId };
      await tasks.enqueue(SYSMETA_CHANGED, changeKey(nodeId, pid), payload);
    }
  }
}
