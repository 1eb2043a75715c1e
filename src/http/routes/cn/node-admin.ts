/**
 * The CN's node registry for its administrators, while it runs (outside the DataONE API, unversioned):
 * `GET {basePath}/admin/nodes` (JSON: every registered node, pending ones too) and
 * `PUT {basePath}/admin/nodes/{nodeId}/approval` (approve a pending node). `d1node node list|approve --cn` call
 * them; callers authenticate as for any call (client certificate or bearer token) and must be administrators.
 */
import type { FastifyInstance } from "fastify";
import { approveRegisteredNode, registryEntries } from "../../../services/cn/node-admin.ts";
import type { NodeContext } from "../../../services/context.ts";
import { callInfo, sendTrue } from "../../call.ts";
import { requiredId } from "../mn/read.ts";

export function registerNodeAdminRoutes(app: FastifyInstance, ctx: NodeContext): void {
  const prefix = `${ctx.config.basePath}/admin/nodes`;
  app.get(prefix, { config: { apiMethod: "d1node.listRegisteredNodes" } }, async (request, reply) =>
    reply.type("application/json").send(JSON.stringify(await registryEntries(ctx, callInfo(request)))),
  );
  app.put<{ Params: { nodeId: string } }>(
    `${prefix}/:nodeId/approval`,
    { config: { apiMethod: "d1node.approveNode" } },
    async (request, reply) => {
      await approveRegisteredNode(ctx, callInfo(request), requiredId(request.params.nodeId));
      return sendTrue(reply);
    },
  );
}
