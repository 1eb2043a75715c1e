/**
 * What follows an object's synchronization onto the Coordinating Node, beyond the search index: replication
 * planning, for an object whose replication policy asks for replicas (the planner's own rule: none without a
 * policy or with replicationAllowed="false"), so that a harvest of many objects that want none queues nothing.
 * Asked for inside the harvest's write (the write core queues the planning with it).
 */
import type { ObjectTransaction } from "../../objects/write.ts";
import type { SystemMetadata } from "../../types/sysmeta.ts";
import { wantedReplicas } from "../replication/targets.ts";

export function replanIfWanted(tx: ObjectTransaction, sysmeta: SystemMetadata): void {
  if (wantedReplicas(sysmeta.replicationPolicy) > 0) tx.replan(sysmeta.identifier);
}
