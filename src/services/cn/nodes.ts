/**
 * The CN's own Node document and the node registry as Node values. "listNodes: a list of Node documents
 * (attribute type cn or mn)": the approved registered Member Nodes and this CN itself.
 */

import type { NodeContext } from "../../context/node-context.ts";
import { parseNode } from "../../types/index.ts";
import type { Node } from "../../types/node.ts";

/** The services this CN really serves, per API version (CNDiagnostic exists in v2 only). */
const CN_SERVICES = [
  "CNCore",
  "CNRead",
  "CNAuthorization",
  "CNIdentity",
  "CNReplication",
  "CNRegister",
  "CNView",
];
const SERVICES_BY_VERSION = { v1: CN_SERVICES, v2: [...CN_SERVICES, "CNDiagnostic"] } as const;

/** CNCore.getCapabilities: "Returns Node for the CN". */
export function cnCapabilities(ctx: NodeContext): Node {
  const { config } = ctx;
  return {
    identifier: config.nodeId,
    name: config.nodeName,
    description: config.nodeDescription,
    baseURL: config.baseUrl,
    services: (["v1", "v2"] as const).flatMap((version) =>
      SERVICES_BY_VERSION[version].map((name) => ({ name, version, available: true, restrictions: [] })),
    ),
    subjects: [config.nodeSubject],
    contactSubjects: [config.contactSubject],
    replicate: false,
    synchronize: false,
    type: "cn",
    state: "up",
    properties: [],
  };
}

/**
 * Approved registered Member Nodes, this CN first (a registry entry with the CN's own id is not listed twice).
 * A registered document of type "cn" (register accepted them once) is not listed: Member Nodes that learn their
 * CNs from this list would give it a CN's rights.
 */
export async function approvedNodes(ctx: NodeContext): Promise<Node[]> {
  const self = cnCapabilities(ctx);
  const registered = await ctx.db.cn.nodes({ approvedOnly: true });
  const members = registered
    .filter((r) => r.nodeId !== self.identifier)
    .map((r) => parseNode(r.nodeXml))
    .filter((node) => node.type === "mn");
  return [self, ...members];
}

/** The approved Member Node with this id (or this CN), if any. */
export async function approvedNode(ctx: NodeContext, nodeId: string): Promise<Node | undefined> {
  if (nodeId === ctx.config.nodeId) return cnCapabilities(ctx);
  const row = await ctx.db.cn.node(nodeId);
  const node = row?.approved ? parseNode(row.nodeXml) : undefined;
  return node?.type === "mn" ? node : undefined;
}
