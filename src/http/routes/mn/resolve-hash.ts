/**
 * `GET {base}/{v1|v2}/resolve/hash://sha256/{hex}` on a Member Node (an extension; CNRead.resolve's path and
 * answer): "HTTP 303 ... with a Location header (the get URL at the first listed location) and an
 * objectLocationList body", listing this node's objects with those bytes.
 */
import type { FastifyInstance } from "fastify";
import { resolveHash } from "../../../services/mn/resolve-hash.ts";
import { serializeObjectLocationList } from "../../../types/index.ts";
import { callInfo, sendXml } from "../../call.ts";
import { identifierAfter, requiredId } from "../../path-id.ts";
import type { RouteScope } from "../scope.ts";

export function registerResolveHashRoute(app: FastifyInstance, scope: RouteScope): void {
  const { ctx, prefix } = scope;
  const resolvePrefix = `${prefix}/resolve/`;
  app.get(`${resolvePrefix}*`, { config: { apiMethod: "MNRead.resolveHash" } }, async (request, reply) => {
    const uri = requiredId(identifierAfter(request, resolvePrefix));
    const list = await resolveHash(ctx, callInfo(request), uri);
    return sendXml(
      reply.code(303).header("Location", list.locations[0]?.url ?? ""),
      serializeObjectLocationList(list),
    );
  });
}
