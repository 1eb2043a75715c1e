/** CNReplication routes: the replica metadata of the authoritative system metadata. */
import type { FastifyInstance } from "fastify";
import * as replication from "../../../services/cn/replication.ts";
import { parseError, parseReplica, parseReplicationPolicy } from "../../../types/index.ts";
import { callInfo, sendTrue } from "../../call.ts";
import { readMultipart, requirePart } from "../../multipart.ts";
import { type Query, stringParam } from "../../params.ts";
import { identifierAfter, requiredId } from "../../path-id.ts";
import type { RouteScope } from "../scope.ts";
import { serialVersionPart } from "./authorization.ts";

/** The description of setReplicationStatus's optional failure part ("exception document or null"). */
function failureDescription(xml: string | undefined): string | undefined {
  if (xml === undefined || xml.trim() === "" || xml.trim() === "null") return undefined;
  try {
    return parseError(xml).description;
  } catch {
    return xml.slice(0, 1000);
  }
}

export function registerCnReplicationRoutes(app: FastifyInstance, { ctx, prefix }: RouteScope): void {
  const policies = `${prefix}/replicaPolicies/`;
  app.put(
    `${policies}*`,
    { config: { apiMethod: "CNReplication.setReplicationPolicy" } },
    async (request, reply) => {
      const id = requiredId(identifierAfter(request, policies));
      const body = await readMultipart(request);
      const policy = parseReplicationPolicy(requirePart(body, "policy"));
      await replication.setReplicationPolicy(ctx, callInfo(request), id, policy, serialVersionPart(body, id));
      return sendTrue(reply);
    },
  );

  const notifications = `${prefix}/replicaNotifications/`;
  app.put(
    `${notifications}*`,
    { config: { apiMethod: "CNReplication.setReplicationStatus" } },
    async (request, reply) => {
      const pid = requiredId(identifierAfter(request, notifications));
      const { parts } = await readMultipart(request);
      await replication.setReplicationStatus(
        ctx,
        callInfo(request),
        pid,
        parts.get("nodeRef"),
        parts.get("status"),
        failureDescription(parts.get("failure")),
      );
      return sendTrue(reply);
    },
  );

  const metadata = `${prefix}/replicaMetadata/`;
  app.put(
    `${metadata}*`,
    { config: { apiMethod: "CNReplication.updateReplicationMetadata" } },
    async (request, reply) => {
      const pid = requiredId(identifierAfter(request, metadata));
      const body = await readMultipart(request);
      const replica = parseReplica(requirePart(body, "replicaMetadata"));
      await replication.updateReplicationMetadata(
        ctx,
        callInfo(request),
        pid,
        replica,
        serialVersionPart(body, pid),
      );
      return sendTrue(reply);
    },
  );

  const remove = `${prefix}/removeReplicaMetadata/`;
  app.put(
    `${remove}*`,
    { config: { apiMethod: "CNReplication.deleteReplicationMetadata" } },
    async (request, reply) => {
      const pid = requiredId(identifierAfter(request, remove));
      const body = await readMultipart(request);
      const nodeId = body.parts.get("nodeId");
      await replication.deleteReplicationMetadata(
        ctx,
        callInfo(request),
        pid,
        nodeId,
        serialVersionPart(body, pid),
      );
      return sendTrue(reply);
    },
  );

  const authorizations = `${prefix}/replicaAuthorizations/`;
  app.get(
    `${authorizations}*`,
    { config: { apiMethod: "CNReplication.isNodeAuthorized" } },
    async (request, reply) => {
      const pid = requiredId(identifierAfter(request, authorizations));
      await replication.isNodeAuthorized(ctx, pid, stringParam(request.query as Query, "targetNodeSubject"));
      return sendTrue(reply);
    },
  );
}
