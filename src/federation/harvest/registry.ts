/**
 * The node registry as the harvester sees it: which Member Nodes to harvest ("every approved, synchronize=true,
 * up MN"), on what schedule, and the lastHarvested date it records in their Node documents (listNodes shows it).
 */

import type { NodeContext } from "../../context/node-context.ts";
import { isHarvested } from "../../services/cn/harvest-requests.ts";
import { changeNodeDocument } from "../../services/cn/node-document.ts";
import { parseNode } from "../../types/index.ts";
import type { Node } from "../../types/node.ts";

/** The Node document of an approved Member Node the CN synchronizes from, if `nodeId` is one. */
export async function harvestableNode(ctx: NodeContext, nodeId: string): Promise<Node | undefined> {
  const row = await ctx.db.cn.node(nodeId);
  if (!row?.approved) return undefined;
  const node = parseNode(row.nodeXml);
  return isHarvested(node) ? node : undefined;
}

/** Every Member Node the CN synchronizes from. */
export async function harvestableNodes(ctx: NodeContext): Promise<Node[]> {
  const rows = await ctx.db.cn.nodes({ approvedOnly: true });
  return rows.map((row) => parseNode(row.nodeXml)).filter(isHarvested);
}

/** synchronization.lastHarvested (and lastCompleteHarvest after a harvest that started from nothing). */
export async function recordHarvested(
  ctx: NodeContext,
  nodeId: string,
  harvestedTo: Date,
  complete: boolean,
): Promise<void> {
  await changeNodeDocument(ctx, nodeId, (node) => {
    if (!node.synchronization) return undefined; // no schedule: not a node the CN harvests
    node.synchronization = {
      ...node.synchronization,
      lastHarvested: harvestedTo,
      ...(complete ? { lastCompleteHarvest: harvestedTo } : {}),
    };
    return node;
  });
}
