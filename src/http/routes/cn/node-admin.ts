/**
 * The CN's node registry for its administrators, while it runs (outside the DataONE API, unversioned):
 * `GET {basePath}/admin/nodes` (JSON: every registered node, pending ones too) and
 * `PUT {basePath}/admin/nodes/{nodeId}/approval` (approve a pending node), `DELETE {basePath}/admin/nodes/{nodeId}`
 * (remove a node; `?pending=true`: only a pending one, rejecting it). `d1node node list|approve|reject|remove --cn` call
 * them; callers authenticate as for any call (client certificate or bearer token) and must be administrators.
 */
import type { FastifyInstance } from "fastify";
import type { NodeContext } from "../../../context/node-context.ts";
import {
  approveRegisteredNode,
  registryEntries,
  removeRegisteredNode,
} from "../../../services/cn/node-admin.ts";
import { callInfo, sendTrue } from "../../call.ts";
import { requiredId } from "../../path-id.ts";

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
  app.delete<{ Params: { nodeId: string }; Querystring: { pending?: string } }>(
    `${prefix}/:nodeId`,
    { config: { apiMethod: "d1node.removeNode" } },
    async (request, reply) => {
      const pendingOnly = request.query.pending === "true";
      await removeRegisteredNode(ctx, callInfo(request), requiredId(request.params.nodeId), pendingOnly);
      return sendTrue(reply);
    },
  );
}
