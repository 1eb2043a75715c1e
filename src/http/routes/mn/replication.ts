/** MNReplication route: replicate (POST /replicate), for Coordinating Nodes. */
import type { FastifyInstance } from "fastify";
import { D1Error, InvalidRequest } from "../../../errors/exceptions.ts";
import { requireCoordinatingNode } from "../../../services/mn/core.ts";
import * as replication from "../../../services/mn/replication.ts";
import { parseSystemMetadata, type SystemMetadata } from "../../../types/index.ts";
import { callInfo, sendTrue } from "../../call.ts";
import { readMultipart, requirePart } from "../../multipart.ts";
import type { RouteScope } from "../scope.ts";

export function registerReplicationRoutes(app: FastifyInstance, { ctx, version, prefix }: RouteScope): void {
  app.post(
    `${prefix}/replicate`,
    { config: { apiMethod: "MNReplication.replicate" } },
    async (request, reply) => {
      const call = callInfo(request);
      requireCoordinatingNode(call, "MNReplication.replicate"); // before the body is read
      const body = await readMultipart(request);
      const sysmeta = replicaSysmeta(requirePart(body, "sysmeta"));
      await replication.replicate(ctx, call, sysmeta, body.parts.get("sourceNode"), version);
      return sendTrue(reply);
    },
  );
}

/** The sysmeta part; MNReplication.replicate lists no InvalidSystemMetadata, so a bad one is InvalidRequest. */
function replicaSysmeta(xml: string): SystemMetadata {
  try {
    return parseSystemMetadata(xml);
  } catch (error) {
    if (error instanceof D1Error)
      throw new InvalidRequest(`The sysmeta part is not valid: ${error.description}`);
    throw error;
  }
}
