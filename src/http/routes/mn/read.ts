/** MNRead routes: get, describe, getSystemMetadata, getChecksum, listObjects, getReplica and the CN callbacks. */
import type { FastifyInstance } from "fastify";
import { InvalidRequest } from "../../../errors/exceptions.ts";
import * as core from "../../../services/mn/core.ts";
import * as read from "../../../services/mn/read.ts";
import {
  parseError,
  serializeChecksum,
  serializeObjectList,
  serializeSystemMetadata,
} from "../../../types/index.ts";
import { callInfo, sendTrue, sendXml } from "../../call.ts";
import { DEFAULT_COUNT, MAX_COUNT } from "../../list-query.ts";
import { readMultipart, requirePart } from "../../multipart.ts";
import { booleanParam, dateParam, dateRange, integerParam, type Query, stringParam } from "../../params.ts";
import { identifierAfter, requiredId } from "../../path-id.ts";
import type { RouteScope } from "../scope.ts";
import { answerObjectGet, answerObjectGetNow, answerObjectHead } from "./object-response.ts";

export function registerReadRoutes(app: FastifyInstance, scope: RouteScope): void {
  const { ctx, version, prefix } = scope;
  const objectPrefix = `${prefix}/object/`;

  app.get(`${prefix}/object`, { config: { apiMethod: "MNRead.listObjects" } }, async (request, reply) => {
    const query = request.query as Query;
    const formatId = stringParam(query, "formatId");
    const identifier = stringParam(query, "identifier");
    const replicaStatus = booleanParam(query, "replicaStatus");
    const page = await read.listObjects(
      ctx,
      callInfo(request),
      {
        ...dateRange(query),
        ...(formatId ? { formatId } : {}),
        ...(identifier ? { identifier } : {}),
        ...(replicaStatus === false ? { replicaStatus } : {}),
      },
      integerParam(query, "start", 0),
      Math.min(integerParam(query, "count", DEFAULT_COUNT), MAX_COUNT),
    );
    return sendXml(reply, serializeObjectList(page));
  });

  // Not async: an object at hand (the row cache, SQLite) is answered without a promise.
  app.get(`${objectPrefix}*`, { config: { apiMethod: "MNRead.get" } }, (request, reply) => {
    const id = requiredId(identifierAfter(request, objectPrefix));
    const call = callInfo(request);
    if (answerObjectGetNow(request, reply, scope, (choose) => read.getNow(ctx, call, id, choose))) return;
    return answerObjectGet(request, reply, scope, (choose) => read.get(ctx, call, id, choose));
  });

  app.head(`${objectPrefix}*`, { config: { apiMethod: "MNRead.describe" } }, async (request, reply) => {
    const id = requiredId(identifierAfter(request, objectPrefix));
    return answerObjectHead(request, reply, scope, await read.readableObject(ctx, callInfo(request), id));
  });

  const metaPrefix = `${prefix}/meta/`;
  app.get(`${metaPrefix}*`, { config: { apiMethod: "MNRead.getSystemMetadata" } }, async (request, reply) => {
    const id = requiredId(identifierAfter(request, metaPrefix));
    const object = await read.readableObject(ctx, callInfo(request), id);
    return sendXml(reply, serializeSystemMetadata(object.sysmeta, version));
  });

  const checksumPrefix = `${prefix}/checksum/`;
  app.get(`${checksumPrefix}*`, { config: { apiMethod: "MNRead.getChecksum" } }, async (request, reply) => {
    const pid = requiredId(identifierAfter(request, checksumPrefix));
    const algorithm = stringParam(request.query as Query, "checksumAlgorithm");
    const checksum = await read.getChecksum(ctx, callInfo(request), pid, algorithm || undefined);
    return sendXml(reply, serializeChecksum(checksum));
  });

  const replicaPrefix = `${prefix}/replica/`;
  app.get(`${replicaPrefix}*`, { config: { apiMethod: "MNRead.getReplica" } }, async (request, reply) => {
    const pid = requiredId(identifierAfter(request, replicaPrefix));
    return answerObjectGet(request, reply, scope, (choose) =>
      read.getReplica(ctx, callInfo(request), pid, choose),
    );
  });

  app.post(
    `${prefix}/error`,
    { config: { apiMethod: "MNRead.synchronizationFailed" } },
    async (request, reply) => {
      core.requireCoordinatingNode(callInfo(request), "synchronizationFailed");
      const body = await readMultipart(request);
      const failure = parseError(requirePart(body, "message"));
      await core.synchronizationFailed(ctx, callInfo(request), {
        description: failure.description,
        ...(failure.pid ? { pid: failure.pid } : {}),
      });
      return sendTrue(reply);
    },
  );

  app.post(
    `${prefix}/dirtySystemMetadata`,
    { config: { apiMethod: "MNRead.systemMetadataChanged" } },
    async (request, reply) => {
      core.requireCoordinatingNode(callInfo(request), "systemMetadataChanged");
      const body = await readMultipart(request);
      const fields: Query = Object.fromEntries(body.parts);
      const id = requiredId(body.parts.get("id") ?? body.parts.get("pid"));
      const serialVersion = integerParam(fields, "serialVersion", -1);
      const modified = dateParam(fields, "dateSysMetaLastModified");
      if (serialVersion < 0 || !modified) {
        throw new InvalidRequest("The parts serialVersion and dateSysMetaLastModified are required.");
      }
      await core.systemMetadataChanged(ctx, callInfo(request), id, serialVersion, modified);
      return sendTrue(reply);
    },
  );
}
