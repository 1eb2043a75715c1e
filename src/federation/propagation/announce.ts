/**
 * The hook every CN write of system metadata calls once its transaction has committed: one `sysmeta-changed`
 * task per Member Node holding the object. Nothing is sent in the request; the tasks deliver (and retry) later.
 */
import type { NodeContext } from "../../services/context.ts";
import { nodesHolding } from "./holders.ts";
import { changeKey, SYSMETA_CHANGED, type SysmetaChangedPayload } from "./kinds.ts";

/**
 * Queue the announcement of a change of `pid`'s system metadata to the nodes holding it. The write it follows
 * has succeeded, so a failure here does not fail the request: it is reported, and the node learns the change
 * with the next one.
 */
export async function announceSysmetaChange(ctx: NodeContext, pid: string): Promise<void> {
  try {
    const object = await ctx.db.objects.get(pid);
    if (!object) return;
    for (const nodeId of nodesHolding(object.sysmeta, ctx.config.nodeId)) {
      const payload: SysmetaChangedPayload = { pid, nodeId };
      await ctx.tasks.enqueue(SYSMETA_CHANGED, changeKey(nodeId, pid), payload);
    }
  } catch (error) {
    process.emitWarning(
      `The change of "${pid}" could not be queued for its Member Nodes: ${(error as Error).message}`,
      "ChangePropagation",
    );
  }
}
