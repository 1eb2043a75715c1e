/**
 * What follows an object's synchronization onto the Coordinating Node, beyond the search index: the planning
 * of its replicas (queued, per its replication policy).
 */
import type { NodeContext } from "../../services/context.ts";
import { scheduleReplication } from "../replication/outcomes.ts";

export async function afterObjectSynchronized(ctx: NodeContext, pid: string): Promise<void> {
  await scheduleReplication(ctx, pid);
}
