/**
 * The node registry as the CN's administrators manage it while the CN runs (`d1node node list|approve --cn`):
 * every registered node, pending ones too, and approval. Outside the DataONE API, for node administrators only.
 */
import { NotAuthorized, NotFound } from "../../errors/exceptions.ts";
import { parseNode } from "../../types/index.ts";
import type { CallInfo, NodeContext } from "../context.ts";
import { approveNode } from "./register.ts";

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

function requireAdmin(call: CallInfo): void {
  if (!call.session.isAdmin) {
    throw new NotAuthorized(`${call.session.subject} is not an administrator of this Coordinating Node.`);
  }
}

export async function registryEntries(ctx: NodeContext, call: CallInfo): Promise<RegistryEntry[]> {
  requireAdmin(call);
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
  requireAdmin(call);
  if (!(await approveNode(ctx.db, nodeId))) throw new NotFound(`No node "${nodeId}" is registered.`);
}
