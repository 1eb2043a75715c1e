/** Which Member Nodes hold an object: the nodes a change of its system metadata is announced to. */
import type { SystemMetadata } from "../../types/sysmeta.ts";

/**
 * The authoritative Member Node and every node with a completed replica, without this node itself (a CN that
 * holds the bytes of objects created through CNCore.create is listed as their authoritative node).
 */
export function nodesHolding(sysmeta: SystemMetadata, selfId: string): string[] {
  const nodes = new Set<string>();
  if (sysmeta.authoritativeMemberNode) nodes.add(sysmeta.authoritativeMemberNode);
  for (const replica of sysmeta.replicas) {
    if (replica.replicationStatus === "completed") nodes.add(replica.replicaMemberNode);
  }
  nodes.delete(selfId);
  return [...nodes];
}
