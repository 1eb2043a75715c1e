/** MNStorage routes: create, update, archive, delete, generateIdentifier, updateSystemMetadata, publish. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { InvalidRequest, InvalidSystemMetadata } from "../../../errors/exceptions.ts";
import { requireIdentifier } from "../../../services/identifiers.ts";
import { publish } from "../../../services/mn/publish.ts";
import * as storage from "../../../services/mn/storage.ts";
import { updateSystemMetadata } from "../../../services/mn/sysmeta-update.ts";
import type { ObjectStore, StagedObject } from "../../../store/types.ts";
import { parseSystemMetadata, type SystemMetadata, serializeIdentifier } from "../../../types/index.ts";
import { parseXml } from "../../../types/xml-parse.ts";
import { callInfo, sendTrue, sendXml } from "../../call.ts";
import { DeclaredAlgorithms } from "../../declared-algorithms.ts";
import {
  holdForSubscribers,
  type MultipartBody,
  readMultipart,
  requirePart,
  SIMPLE_VALUE_BYTES,
  sysmetaAlgorithm,
  sysmetaSize,
} from "../../multipart.ts";
import { identifierAfter, requiredId } from "../../path-id.ts";
import type { RouteScope } from "../scope.ts";

export function registerStorageRoutes(app: FastifyInstance, scope: RouteScope): void {
  const { ctx, version, prefix } = scope;
  const objectPrefix = `${prefix}/object/`;
  const declared = new DeclaredAlgorithms();

  // create: POST /object (the API). MetacatUI (as Metacat accepts it) posts to /object/ and to /object/{pid}:
  // the same create; a pid in the path must be the one in the "pid" part when both are given.
  const create = async (request: FastifyRequest, reply: FastifyReply) => {
    const inPath = request.url.split("?")[0]?.startsWith(objectPrefix)
      ? identifierAfter(request, objectPrefix)
      : "";
    const call = callInfo(request);
    storage.requireSubmitter(ctx, call, "create");
    const body = await readObjectUpload(request, scope, declared);
    const staged = await objectBytes(request, body, ctx.store);
    try {
      const given = inPath === "" ? requirePart(body, "pid") : (body.parts.get("pid") ?? inPath);
      if (inPath !== "" && given !== inPath) {
        throw new InvalidRequest(`The pid part "${given}" is not the pid of the path, "${inPath}".`);
      }
      const pid = requireIdentifier(given, "pid");
      const sysmeta = parseSystemMetadata(requirePart(body, "sysmeta"));
      declared.remember(request, sysmeta.checksum.algorithm);
      return sendXml(reply, serializeIdentifier(await storage.create(ctx, call, pid, sysmeta, staged)));
    } finally {
      await staged.discard();
    }
  };
  const createMethod = { config: { apiMethod: "MNStorage.create" } };
  app.post(`${prefix}/object`, createMethod, create);
  app.post(objectPrefix, createMethod, create);
  app.post(`${objectPrefix}*`, createMethod, create);

  app.put(`${objectPrefix}*`, { config: { apiMethod: "MNStorage.update" } }, async (request, reply) => {
    const call = callInfo(request);
    const pid = requiredId(identifierAfter(request, objectPrefix));
    storage.requireSubmitter(ctx, call, "update");
    const body = await readObjectUpload(request, scope, declared);
    const staged = await objectBytes(request, body, ctx.store);
    try {
      const newPid = requireIdentifier(requirePart(body, "newPid"), "newPid");
      const sysmeta = parseSystemMetadata(requirePart(body, "sysmeta"));
      declared.remember(request, sysmeta.checksum.algorithm);
      return sendXml(
        reply,
        serializeIdentifier(await storage.update(ctx, call, pid, newPid, sysmeta, staged)),
      );
    } finally {
      await staged.discard();
    }
  });

  const archivePrefix = `${prefix}/archive/`;
  app.put(`${archivePrefix}*`, { config: { apiMethod: "MNStorage.archive" } }, async (request, reply) => {
    const id = requiredId(identifierAfter(request, archivePrefix));
    return sendXml(reply, serializeIdentifier(await storage.archive(ctx, callInfo(request), id)));
  });

  // Metacat's publish (v1 and v2; MetacatUI calls {mn}/v2/publish/{pid} with an empty body).
  const publishPrefix = `${prefix}/publish/`;
  app.put(`${publishPrefix}*`, { config: { apiMethod: "MNStorage.publish" } }, async (request, reply) => {
    const id = requiredId(identifierAfter(request, publishPrefix));
    return sendXml(reply, serializeIdentifier(await publish(ctx, callInfo(request), id)));
  });

  app.delete(`${objectPrefix}*`, { config: { apiMethod: "MNStorage.delete" } }, async (request, reply) => {
    const id = requiredId(identifierAfter(request, objectPrefix));
    return sendXml(reply, serializeIdentifier(await storage.remove(ctx, callInfo(request), id)));
  });

  app.post(
    `${prefix}/generate`,
    { config: { apiMethod: "MNStorage.generateIdentifier" } },
    async (request, reply) => {
      storage.requireSubmitter(ctx, callInfo(request), "generate identifiers for");
      const body = await readMultipart(request, { maxPart: SIMPLE_VALUE_BYTES });
      const id = await storage.generateIdentifier(ctx, callInfo(request), body.parts.get("scheme"));
      return sendXml(reply, serializeIdentifier(id));
    },
  );

  if (version === "v2") {
    // updateSystemMetadata: PUT /meta (the API). MetacatUI (as Metacat accepts it) puts to /meta/{pid}: the same
    // call; a pid in the path must be the one in the "pid" part when both are given.
    const metaPrefix = `${prefix}/meta/`;
    const updateSysmeta = async (request: FastifyRequest, reply: FastifyReply) => {
      const inPath = request.url.split("?")[0]?.startsWith(metaPrefix)
        ? identifierAfter(request, metaPrefix)
        : "";
      const body = await readMultipart(request, { partLimits: { pid: SIMPLE_VALUE_BYTES } });
      const given = inPath === "" ? requirePart(body, "pid") : (body.parts.get("pid") ?? inPath);
      if (inPath !== "" && given !== inPath) {
        throw new InvalidRequest(`The pid part "${given}" is not the pid of the path, "${inPath}".`, {
          pid: inPath,
        });
      }
      const pid = requireIdentifier(given, "pid");
      const sysmeta = parseSysmetaFor(pid, requirePart(body, "sysmeta"));
      await updateSystemMetadata(ctx, callInfo(request), pid, sysmeta);
      return sendTrue(reply);
    };
    const updateMethod = { config: { apiMethod: "MNStorage.updateSystemMetadata" } };
    app.put(`${prefix}/meta`, updateMethod, updateSysmeta);
    app.put(`${metaPrefix}*`, updateMethod, updateSysmeta);
  }
}

/**
 * updateSystemMetadata's sysmeta part. Its identifier is compared with pid before the document is validated, so
 * a missing, empty or different identifier is InvalidRequest ("pid and system metadata don't match").
 */
function parseSysmetaFor(pid: string, xml: string): SystemMetadata {
  const identifier = parseXml(xml, InvalidSystemMetadata).children.find((c) => c.name === "identifier");
  if (identifier?.text !== pid) {
    throw new InvalidRequest(
      `The system metadata identifier "${identifier?.text ?? ""}" differs from pid "${pid}".`,
      { pid },
    );
  }
  return parseSystemMetadata(xml);
}

/**
 * The upload's bytes are hashed with SHA-256 and the algorithm of a sysmeta part read before them, else the one
 * the client declared last (d1_client sends the object part first; declared-algorithms.ts).
 */
function readObjectUpload(
  request: FastifyRequest,
  { ctx }: RouteScope,
  declared: DeclaredAlgorithms,
): Promise<MultipartBody> {
  return readMultipart(request, {
    store: ctx.store,
    objectPart: "object",
    algorithmHint: (parts) => sysmetaAlgorithm(parts) ?? declared.guess(request),
    sizeHint: sysmetaSize,
    holdBytes: holdForSubscribers(ctx.changes),
    partLimits: { pid: SIMPLE_VALUE_BYTES, newPid: SIMPLE_VALUE_BYTES, objectUpload: SIMPLE_VALUE_BYTES },
  });
}

/**
 * The object's bytes: the `object` part, or instead an `objectUpload` text part naming a finished resumable upload
 * of the caller's ({basePath}/uploads; docs/decisions.md, "Resumable uploads"), hashed as it arrived.
 */
async function objectBytes(
  request: FastifyRequest,
  body: MultipartBody,
  store: ObjectStore,
): Promise<StagedObject> {
  const reference = body.parts.get("objectUpload");
  if (body.staged && reference !== undefined) {
    await body.staged.discard();
    throw new InvalidRequest('Give the object either as the part "object" or as "objectUpload", not both.');
  }
  if (body.staged) return body.staged;
  const uploads = request.server.uploads;
  if (reference === undefined || !uploads) {
    throw new InvalidRequest('The multipart part "object" (the object bytes) is missing.');
  }
  return uploads.take(reference, callInfo(request).session.subject, store);
}
