/**
 * Who may act as a registered node. A node's subjects name the callers that speak for it (its replicas, its
 * synchronize requests, its own Node document), so a node may not name:
 *  - a symbolic subject (`public`, `authenticatedUser`, `verifiedUser`): every caller, or every signed-in one,
 *    holds it;
 *  - a subject of another registered node (approved or pending, current or waiting for approval);
 *  - this Coordinating Node's subject, a configured CN subject or an administrator's.
 * A caller acts as a node only through one of its real subjects: a symbolic subject stored before these rules
 * were kept matches nobody.
 */
import { isSymbolicSubject } from "../../auth/subjects.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { InvalidRequest } from "../../errors/exceptions.ts";
import { parseNode } from "../../types/index.ts";
import type { Node } from "../../types/node.ts";

/** Whether the caller holds one of the node's real (not symbolic) subjects. */
export function actsAsNode(node: Node, call: CallInfo): boolean {
  return node.subjects.some((s) => !isSymbolicSubject(s) && call.session.subjects.has(s));
}

/** Refuses (InvalidRequest) subjects that node `nodeId` may not hold. */
export async function checkNodeSubjects(
  ctx: NodeContext,
  nodeId: string,
  subjects: readonly string[],
): Promise<void> {
  const symbolic = subjects.filter(isSymbolicSubject);
  if (symbolic.length > 0) {
    throw new InvalidRequest(
      `A node's subject must identify the node alone: "${symbolic[0]}" stands for every caller ` +
        "(public, authenticatedUser and verifiedUser are refused).",
    );
  }
  const { config } = ctx;
  const reserved = new Set([config.nodeSubject, ...config.cnSubjects, ...config.adminSubjects]);
  const own = subjects.find((s) => reserved.has(s));
  if (own !== undefined) {
    throw new InvalidRequest(
      `"${own}" is a subject of this Coordinating Node or of an administrator; a node may not hold it.`,
    );
  }
  const wanted = new Set(subjects);
  for (const row of await ctx.db.cn.nodes({ approvedOnly: false })) {
    if (row.nodeId === nodeId) continue;
    const taken = [...parseNode(row.nodeXml).subjects, ...(row.pendingSubjects ?? [])].find((s) =>
      wanted.has(s),
    );
    if (taken !== undefined) {
      throw new InvalidRequest(
        `"${taken}" is a subject of node ${row.nodeId}; a node may not hold another's subject.`,
      );
    }
  }
}

/** Same subjects, in any order. */
export function sameSubjects(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  return set.size === new Set(b).size && b.every((s) => set.has(s));
}
