/**
 * MNReplication.replicate: "Parts: sysmeta (SystemMetadata file part, copy of the CN-held document), sourceNode
 * (NodeReference text part, resolved through the CN registry) ... Access MUST allow CNs." The request is checked
 * against the node's willingness and its nodeReplicationPolicy and answered at once; the bytes are pulled by a
 * background task (src/federation/replication/pull.ts), which reports the outcome to the CN.
 */

import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { InsufficientResources, InvalidRequest, UnsupportedType } from "../../errors/exceptions.ts";
import { algorithmKey } from "../../store/index.ts";
import type { PullPayload } from "../../tasks/kinds.ts";
import { PULL_REPLICA } from "../../tasks/kinds.ts";
import { serializeSystemMetadata } from "../../types/index.ts";
import type { ApiVersion, SystemMetadata } from "../../types/sysmeta.ts";
import { requireCoordinatingNode } from "./core.ts";

export async function replicate(
  ctx: NodeContext,
  call: CallInfo,
  sysmeta: SystemMetadata,
  sourceNode: string | undefined,
  version: ApiVersion,
): Promise<boolean> {
  requireCoordinatingNode(call, "MNReplication.replicate");
  const { config } = ctx;
  const pid = sysmeta.identifier;
  const refuse = (why: string) => new InvalidRequest(why, { pid });
  if (!config.replicate)
    throw refuse(`This node takes no replicas (its Node document says replicate="false").`);
  const source = sourceNode?.trim() ?? "";
  if (source === "") throw refuse("The sourceNode part is required.");
  if (source === config.nodeId) throw refuse(`The source node ${source} is this node.`);
  if (sysmeta.authoritativeMemberNode === config.nodeId) {
    throw refuse(`This node is the authoritative Member Node of "${pid}".`);
  }
  // nodeReplicationPolicy: "allowedNode ... a peer source node from which this node is willing to replicate"
  if (config.replicationAllowedNodes.length > 0 && !config.replicationAllowedNodes.includes(source)) {
    throw refuse(
      `This node takes replicas from ${config.replicationAllowedNodes.join(", ")} only, not ${source}.`,
    );
  }
  if (!ctx.formats.get(sysmeta.formatId)) {
    throw new UnsupportedType(`formatId "${sysmeta.formatId}" is not a registered object format.`, { pid });
  }
  if (
    config.replicationAllowedFormats.length > 0 &&
    !config.replicationAllowedFormats.includes(sysmeta.formatId)
  ) {
    throw new UnsupportedType(`This node takes no replicas of format "${sysmeta.formatId}".`, { pid });
  }
  if (!algorithmKey(sysmeta.checksum.algorithm)) {
    throw refuse(`Checksum algorithm "${sysmeta.checksum.algorithm}" is not supported.`);
  }
  await checkSpace(ctx, sysmeta);
  const held = await ctx.db.objects.get(pid);
  if (held && !held.isReplica) throw refuse(`"${pid}" is held here as an original, not as a replica.`);
  if (!held && (await ctx.db.objects.isIdentifierInUse(pid))) {
    throw refuse(`"${pid}" is in use on this node as a series identifier.`);
  }
  const payload: PullPayload = {
    sysmeta: serializeSystemMetadata(sysmeta, "v2"),
    sourceNode: source,
    version,
  };
  await ctx.tasks.enqueue(PULL_REPLICA, pid, payload);
  return true;
}

/** maxObjectSize and spaceAllocated ("the total space in bytes allocated for replication object storage"). */
async function checkSpace(ctx: NodeContext, sysmeta: SystemMetadata): Promise<void> {
  const { replicationMaxObjectSize: max, replicationSpaceAllocated: allocated } = ctx.config;
  const pid = sysmeta.identifier;
  if (max !== undefined && sysmeta.size > max) {
    throw new InsufficientResources(
      `"${pid}" has ${sysmeta.size} bytes; this node takes replicas of at most ${max}.`,
      {
        pid,
      },
    );
  }
  if (allocated === undefined) return;
  const used = await ctx.db.objects.replicaBytes(pid);
  if (used + sysmeta.size > allocated) {
    throw new InsufficientResources(
      `Replicas use ${used} of the ${allocated} bytes allocated to them; "${pid}" (${sysmeta.size} bytes) does not fit.`,
      { pid },
    );
  }
}
