/**
 * What follows an object's synchronization onto the Coordinating Node, beyond the search index: the hook
 * replication planning fills (an object whose replication policy asks for replicas gets them planned here).
 */
import type { NodeContext } from "../../services/context.ts";

export async function afterObjectSynchronized(_ctx: NodeContext, _pid: string): Promise<void> {}
