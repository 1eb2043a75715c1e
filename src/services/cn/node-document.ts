/**
 * Field-level changes to a registered node's Node document. Several writers change one document: the ping
 * recorder (`state`, `ping`), the harvester (`synchronization.lastHarvested`, `lastCompleteHarvest`) and the
 * node itself through updateNodeCapabilities (everything else). Each reads
 * the document, changes its own fields and writes it back only if nobody wrote it meanwhile (compare-and-set);
 * when somebody did, it re-reads and applies its change again, so no writer overwrites another's fields.
 */

import type { NodeContext } from "../../context/node-context.ts";
import { parseNode, serializeNode } from "../../types/index.ts";
import type { Node } from "../../types/node.ts";

/** Enough for any realistic number of writers of one document; each retry follows a write that succeeded. */
const MAX_ATTEMPTS = 50;

/**
 * Applies `change` to the stored document of `nodeId`. `change` returns the new document, or undefined to write
 * nothing. `write` stores it only if the stored document is still `expectedXml` (false: re-read and try again);
 * by default it changes the document alone. Returns the document as it was before the change that was written;
 * undefined when the node is not registered or `change` wrote nothing.
 */
export async function changeNodeDocument(
  ctx: Pick<NodeContext, "db">,
  nodeId: string,
  change: (node: Node) => Node | undefined,
  write: (expectedXml: string, next: Node) => Promise<boolean> = (expectedXml, next) =>
    ctx.db.cn.swapNodeXml(nodeId, expectedXml, serializeNode(next, "v2")),
): Promise<Node | undefined> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const row = await ctx.db.cn.node(nodeId);
    if (!row) return undefined;
    const before = parseNode(row.nodeXml);
    const next = change(parseNode(row.nodeXml));
    if (!next) return undefined;
    if (await write(row.nodeXml, next)) return before;
  }
  throw new Error(`the Node document of ${nodeId} kept changing under ${MAX_ATTEMPTS} attempts to update it`);
}
