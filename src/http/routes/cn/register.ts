/** CNRegister routes: register, updateNodeCapabilities, getNodeCapabilities. */
import type { FastifyInstance } from "fastify";
import * as registry from "../../../services/cn/register.ts";
import { parseNode, serializeNode } from "../../../types/index.ts";
import { document, escapeText, NS_V1 } from "../../../types/xml.ts";
import { callInfo, sendTrue, sendXml } from "../../call.ts";
import { readMultipart, requirePart } from "../../multipart.ts";
import { identifierAfter, requiredId } from "../../path-id.ts";
import type { RouteScope } from "../scope.ts";

export function registerCnRegisterRoutes(app: FastifyInstance, { ctx, version, prefix }: RouteScope): void {
  const nodePrefix = `${prefix}/node/`;
  app.post(`${prefix}/node`, { config: { apiMethod: "CNRegister.register" } }, async (request, reply) => {
    const body = await readMultipart(request);
    const node = parseNode(requirePart(body, "node"));
    const id = await registry.register(ctx, callInfo(request), node);
    return sendXml(reply, document(NS_V1, "nodeReference", "", escapeText(id)));
  });
  app.put(
    `${nodePrefix}*`,
    { config: { apiMethod: "CNRegister.updateNodeCapabilities" } },
    async (request, reply) => {
      const nodeId = requiredId(identifierAfter(request, nodePrefix));
      const body = await readMultipart(request);
      await registry.updateNodeCapabilities(
        ctx,
        callInfo(request),
        nodeId,
        parseNode(requirePart(body, "node")),
      );
      return sendTrue(reply);
    },
  );
  app.get(
    `${nodePrefix}*`,
    { config: { apiMethod: "CNRegister.getNodeCapabilities" } },
    async (request, reply) => {
      const nodeId = requiredId(identifierAfter(request, nodePrefix));
      return sendXml(reply, serializeNode(await registry.getNodeCapabilities(ctx, nodeId), version));
    },
  );
}
