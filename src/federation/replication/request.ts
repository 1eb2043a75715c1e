/**
 * The CN asks one target Member Node to replicate one object: MNReplication.replicate with the authoritative
 * system metadata and the source node, then queued -> requested. A node that refuses or cannot be reached gets
 * a failed replica (counted against it) and the object is planned again, on another node.
 */

import type { NodeContext } from "../../context/node-context.ts";
import { D1Error } from "../../errors/exceptions.ts";
import type { ObjectTransaction } from "../../objects/write.ts";
import { approvedNodes } from "../../services/cn/nodes.ts";
import { replicationStatusReported } from "../../services/cn/replica-outcomes.ts";
import { changeReplicaList } from "../../services/cn/replication.ts";
import type { Replica, ReplicationStatus } from "../../types/sysmeta.ts";
import { clientFor } from "../client.ts";
import { replicationVersion, sourceNode } from "./targets.ts";

export async function requestReplica(ctx: NodeContext, pid: string, nodeId: string): Promise<void> {
  const object = await ctx.db.objects.get(pid);
  const entry = object?.sysmeta.replicas.find((r) => r.replicaMemberNode === nodeId);
  if (!object || entry?.replicationStatus !== "queued") return; // planned anew or answered meanwhile
  const nodes = await approvedNodes(ctx);
  const target = nodes.find((n) => n.identifier === nodeId);
  const source = sourceNode(object.sysmeta, nodes);
  const version = target && source ? replicationVersion(source, target) : undefined;
  if (!target || !source || !version) {
    await failRequest(ctx, pid, nodeId, `no source node or no common API version for ${nodeId}`);
    return;
  }
  try {
    await clientFor(ctx, target.baseURL, { version }).replicate(object.sysmeta, source.identifier);
  } catch (error) {
    const why = error instanceof D1Error ? `${error.exception}: ${error.description}` : String(error);
    await failRequest(ctx, pid, nodeId, `${nodeId} did not accept the replication request: ${why}`);
    return;
  }
  await moveReplica(ctx, pid, nodeId, "queued", "requested");
}

/** Sets the replica's status when it still is `from` (`alongside` in the same transaction); whether it did. */
async function moveReplica(
  ctx: NodeContext,
  pid: string,
  nodeId: string,
  from: ReplicationStatus,
  to: ReplicationStatus,
  alongside?: (tx: ObjectTransaction) => Promise<void>,
): Promise<boolean> {
  let moved = false;
  await changeReplicaList(
    ctx,
    pid,
    (current) => {
      const entry = current.replicas.find((r) => r.replicaMemberNode === nodeId);
      moved = entry?.replicationStatus === from;
      if (!moved) return undefined;
      const replica: Replica = {
        replicaMemberNode: nodeId,
        replicationStatus: to,
        replicaVerified: new Date(),
      };
      return current.replicas.map((r) => (r.replicaMemberNode === nodeId ? replica : r));
    },
    alongside,
  );
  return moved;
}

async function failRequest(ctx: NodeContext, pid: string, nodeId: string, why: string): Promise<void> {
  await moveReplica(ctx, pid, nodeId, "queued", "failed", (tx) =>
    replicationStatusReported(ctx, tx, pid, nodeId, "failed", why),
  );
}
