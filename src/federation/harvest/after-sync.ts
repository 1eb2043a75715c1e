/**
 * What follows an object's synchronization onto the Coordinating Node, beyond the search index: replication
 * planning, for an object whose replication policy asks for replicas (the planner's own rule: none without a
 * policy or with replicationAllowed="false"), so that a harvest of many objects that want none queues nothing.
 */
import type { NodeContext } from "../../services/context.ts";
import type { SystemMetadata } from "../../types/sysmeta.ts";
import { scheduleReplication } from "../replication/outcomes.ts";
import { wantedReplicas } from "../replication/targets.ts";

export async function afterObjectSynchronized(ctx: NodeContext, sysmeta: SystemMetadata): Promise<void> {
  if (wantedReplicas(sysmeta.replicationPolicy) > 0) await scheduleReplication(ctx, sysmeta.identifier);
}
