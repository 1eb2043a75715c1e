/**
 * CNRegister: register (pending until an administrator approves the node), updateNodeCapabilities,
 * getNodeCapabilities; and the approval the `d1node node approve` command performs. Register takes Member Nodes
 * only: a Coordinating Node is one by configuration, never by its own word. A node's subjects are checked
 * (node-subjects.ts), and a change of an approved node's subjects waits for an administrator's approval.
 */

import { isTrusted } from "../../auth/access.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import type { Database } from "../../db/types.ts";
import { IdentifierNotUnique, InvalidRequest, NotAuthorized, NotFound } from "../../errors/exceptions.ts";
import { type Node, parseNode, serializeNode } from "../../types/index.ts";
import { scheduleHarvest } from "./harvest-requests.ts";
import { changeNodeDocument } from "./node-document.ts";
import { actsAsNode, checkNodeSubjects, sameSubjects } from "./node-subjects.ts";
import { approvedNode } from "./nodes.ts";

/** "node id urn:node: + 2-23 word characters". */
const NODE_ID = /^urn:node:\w{2,23}$/;

function checkNode(node: Node): void {
  if (!NODE_ID.test(node.identifier)) {
    throw new InvalidRequest(
      `Node identifier "${node.identifier}" must be urn:node: followed by 2-23 letters, digits or _.`,
    );
  }
  if (!/^https?:\/\/[^/]/.test(node.baseURL)) {
    throw new InvalidRequest(`baseURL "${node.baseURL}" must be an http(s) URL.`);
  }
}

/** CNRegister.register: "An existing node gives IdentifierNotUnique." New nodes wait for approval. */
export async function register(ctx: NodeContext, call: CallInfo, node: Node): Promise<string> {
  if (!call.session.authenticated) {
    throw new NotAuthorized("An anonymous caller may not register a node; authenticate as the node.");
  }
  checkNode(node);
  if (node.type !== "mn") {
    throw new InvalidRequest(
      `CNRegister.register takes Member Nodes (type="mn") only; a Coordinating Node is one by the ` +
        `configuration of the CNs and Member Nodes, not by registering (this document says type="${node.type}").`,
    );
  }
  const baseUrl = node.baseURL.replace(/\/+$/, "");
  if (node.identifier === ctx.config.nodeId || (await ctx.db.cn.node(node.identifier))) {
    throw new IdentifierNotUnique(`Node "${node.identifier}" is already registered.`);
  }
  if (await ctx.db.cn.nodeByBaseUrl(baseUrl)) {
    throw new IdentifierNotUnique(`A node with baseURL "${baseUrl}" is already registered.`);
  }
  await checkNodeSubjects(ctx, node.identifier, node.subjects);
  const stored: Node = { ...node, baseURL: baseUrl, ping: undefined, state: node.state };
  const added = await ctx.db.cn.addNode({
    nodeId: node.identifier,
    baseUrl,
    nodeXml: serializeNode(stored, "v2"),
    approved: false,
    registeredBy: call.session.subject,
  });
  if (!added)
    throw new IdentifierNotUnique(`Node "${node.identifier}" or its baseURL is already registered.`);
  return node.identifier;
}

/**
 * CNRegister.updateNodeCapabilities: "the node identifier, nodeType, ping, synchronization.lastHarvested and
 * synchronization.lastCompleteHarvest are kept from the existing entry; services missing in the new document are
 * removed." Only the node's own subjects, CNs and administrators may. The fields the CN owns (also `state`, which
 * its pings set; approval is not in the document) come from the document as stored at the moment of the write: a
 * ping or harvest that writes meanwhile makes this re-read and merge again (compare-and-set), so none is lost.
 * New subjects of an approved node wait for an administrator's approval (`d1node node approve`); until then the
 * document keeps the approved ones. An administrator's own update changes them at once.
 */
export async function updateNodeCapabilities(
  ctx: NodeContext,
  call: CallInfo,
  nodeId: string,
  node: Node,
): Promise<boolean> {
  const row = await ctx.db.cn.node(nodeId);
  if (!row) throw new NotFound(`No node "${nodeId}" is registered.`);
  const registered = parseNode(row.nodeXml);
  if (!actsAsNode(registered, call) && !isTrusted(call.session)) {
    throw new NotAuthorized(`${call.session.subject} is not a subject of node "${nodeId}".`);
  }
  if (node.identifier !== nodeId) {
    throw new InvalidRequest(`The document's identifier "${node.identifier}" differs from "${nodeId}".`);
  }
  checkNode(node);
  await checkNodeSubjects(ctx, nodeId, node.subjects);
  // An approved node's new subjects wait for an administrator (its registration did too).
  const awaitsApproval =
    row.approved && !call.session.isAdmin && !sameSubjects(registered.subjects, node.subjects);
  const keepCnFields = (existing: Node): Node => {
    const sync = node.synchronization
      ? {
          ...node.synchronization,
          lastHarvested: existing.synchronization?.lastHarvested,
          lastCompleteHarvest: existing.synchronization?.lastCompleteHarvest,
        }
      : undefined;
    return {
      ...node,
      baseURL: node.baseURL.replace(/\/+$/, ""),
      identifier: existing.identifier,
      type: existing.type,
      ping: existing.ping,
      state: existing.state,
      synchronization: sync,
      subjects: awaitsApproval ? existing.subjects : node.subjects,
    };
  };
  const writeIfUnchanged = async (expectedXml: string, next: Node): Promise<boolean> => {
    const outcome = await ctx.db.cn.replaceNodeXml(
      nodeId,
      expectedXml,
      next.baseURL,
      serializeNode(next, "v2"),
    );
    if (outcome === "baseUrlTaken") {
      throw new InvalidRequest(`Another node is registered with baseURL "${next.baseURL}".`);
    }
    return outcome === "replaced";
  };
  if (!(await changeNodeDocument(ctx, nodeId, keepCnFields, writeIfUnchanged))) {
    throw new NotFound(`No node "${nodeId}" is registered.`);
  }
  // Asking for the approved subjects again withdraws a request that waits.
  await ctx.db.cn.setPendingSubjects(nodeId, awaitsApproval ? node.subjects : undefined);
  const updated = await ctx.db.cn.node(nodeId);
  if (updated?.approved) await scheduleHarvest(ctx.tasks, parseNode(updated.nodeXml)); // a new schedule, or a node back up
  return true;
}

/** CNRegister.getNodeCapabilities: approved nodes and this CN. */
export async function getNodeCapabilities(ctx: NodeContext, nodeId: string): Promise<Node> {
  const node = await approvedNode(ctx, nodeId);
  if (!node) throw new NotFound(`No approved node "${nodeId}" is registered.`);
  return node;
}

/**
 * Administrator approval of a pending node, or of the subjects an approved node asked for (the CLI). false when
 * no such node is registered.
 */
export async function approveNode(db: Database, nodeId: string): Promise<boolean> {
  const pending = (await db.cn.node(nodeId))?.pendingSubjects;
  if (pending) {
    await changeNodeDocument({ db }, nodeId, (node) => ({ ...node, subjects: pending }));
    await db.cn.setPendingSubjects(nodeId, undefined);
  }
  if (!(await db.cn.approveNode(nodeId))) return false;
  // "The CN harvests every approved, synchronize=true, up MN": its first harvest, at its schedule's next time.
  const row = await db.cn.node(nodeId);
  if (row) await scheduleHarvest(db.tasks, parseNode(row.nodeXml));
  return true;
}

/**
 * Removes a node's registry entry (`pendingOnly`: a registration not yet approved), as `d1node node reject` and
 * `remove` do: it leaves listNodes and resolve, is no longer pinged, and its waiting harvest finds no node.
 */
export function removeNode(db: Database, nodeId: string, pendingOnly: boolean): Promise<boolean> {
  return db.cn.removeNode(nodeId, { pendingOnly });
}
