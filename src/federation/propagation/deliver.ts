/**
 * The CN's side of change propagation: tell one Member Node holding an object that its system metadata changed
 * (MNRead.systemMetadataChanged with the current serialVersion and dateSysMetadataModified). The task reads the
 * object when it runs, so however many changes were queued, the node hears of the latest.
 */

import type { NodeContext } from "../../context/node-context.ts";
import { approvedNode } from "../../services/cn/nodes.ts";
import type { Node } from "../../types/node.ts";
import { nodesHolding } from "./holders.ts";

/** What delivery needs of a Member Node (a D1Client is one). */
export interface ChangeListener {
  systemMetadataChanged(pid: string, serialVersion: number, modified: Date): Promise<void>;
}

/** delivered; gone (the object was deleted); moved (the node no longer holds it); unknown-node (not approved). */
export type DeliveryOutcome = "delivered" | "gone" | "moved" | "unknown-node";

export async function deliverChange(
  ctx: NodeContext,
  pid: string,
  nodeId: string,
  connect: (node: Node) => ChangeListener,
): Promise<DeliveryOutcome> {
  const object = await ctx.db.objects.get(pid);
  if (!object) return "gone";
  const { sysmeta } = object;
  if (!nodesHolding(sysmeta, ctx.config.nodeId).includes(nodeId)) return "moved";
  const node = await approvedNode(ctx, nodeId);
  if (node?.type !== "mn") return "unknown-node";
  await connect(node).systemMetadataChanged(
    pid,
    sysmeta.serialVersion ?? 1,
    sysmeta.dateSysMetadataModified ?? new Date(),
  );
  return "delivered";
}

/** The API version to call a node with: v2 when its Node document lists MNRead v2. */
export function versionFor(node: Node, service = "MNRead"): "v1" | "v2" {
  return node.services.some((s) => s.name === service && s.version === "v2" && s.available !== false)
    ? "v2"
    : "v1";
}
