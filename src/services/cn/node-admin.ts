/**
 * The node registry as the CN's administrators manage it while the CN runs (`d1node node list|approve --cn`):
 * every registered node, pending ones too, approval, rejection and removal. Outside the DataONE API, for node administrators only.
 */

import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { InvalidRequest, NotAuthorized, NotFound } from "../../errors/exceptions.ts";
import { parseNode } from "../../types/index.ts";
import { approveNode, removeNode } from "./register.ts";

export interface RegistryEntry {
  nodeId: string;
  baseUrl: string;
  approved: boolean;
  /** The state the CN's pings last found (up, down, unknown). */
  state: string;
  registeredBy: string;
  /** Subjects the node asked for, waiting for approval (`node approve` applies them). */
  pendingSubjects?: string[];
}

/**
 * The CN's administrators, and the CN itself: a token its own key signs for its own subject (which only its data
 * folder can make), so that `d1node node ... --cn` run beside the CN needs no administrator named to it.
 */
function requireAdmin(ctx: NodeContext, call: CallInfo): void {
  if (!call.session.isAdmin && !call.session.subjects.has(ctx.config.nodeSubject)) {
    throw new NotAuthorized(`${call.session.subject} is not an administrator of this Coordinating Node.`);
  }
}

export async function registryEntries(ctx: NodeContext, call: CallInfo): Promise<RegistryEntry[]> {
  requireAdmin(ctx, call);
  const rows = await ctx.db.cn.nodes({ approvedOnly: false });
  return rows.map((row) => ({
    nodeId: row.nodeId,
    baseUrl: row.baseUrl,
    approved: row.approved,
    state: parseNode(row.nodeXml).state,
    registeredBy: row.registeredBy,
    ...(row.pendingSubjects ? { pendingSubjects: row.pendingSubjects } : {}),
  }));
}

export async function approveRegisteredNode(ctx: NodeContext, call: CallInfo, nodeId: string): Promise<void> {
  requireAdmin(ctx, call);
  if (!(await approveNode(ctx.db, nodeId))) throw new NotFound(`No node "${nodeId}" is registered.`);
}

/** Removes a node from the registry: a pending one (`pendingOnly`, rejecting its registration) or any. */
export async function removeRegisteredNode(
  ctx: NodeContext,
  call: CallInfo,
  nodeId: string,
  pendingOnly: boolean,
): Promise<void> {
  requireAdmin(ctx, call);
  if (await removeNode(ctx.db, nodeId, pendingOnly)) return;
  if (pendingOnly && (await ctx.db.cn.node(nodeId)))
    throw new InvalidRequest(`Node "${nodeId}" is approved, not pending: remove it instead.`);
  throw new NotFound(`No node "${nodeId}" is registered.`);
}
