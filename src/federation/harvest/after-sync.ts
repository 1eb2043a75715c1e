/**
 * What follows an object's synchronization onto the Coordinating Node, beyond the search index: the hook
 * replication planning fills (the replication engine's `scheduleReplication(ctx, pid)` queues the planning of an
 * object's replicas after synchronization).
 */
import type { NodeContext } from "../../services/context.ts";

export async function afterObjectSynchronized(_ctx: NodeContext, _pid: string): Promise<void> {}
