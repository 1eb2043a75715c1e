/**
 * CNRead routes: get, describe, getSystemMetadata, getChecksum, listObjects, resolve, synchronize,
 * listQueryEngines, getQueryEngineDescription, query, search.
 */
import type { FastifyInstance } from "fastify";
import { SolrParams } from "../../../search/index.ts";
import * as cnRead from "../../../services/cn/read.ts";
import { searchObjects } from "../../../services/cn/search.ts";
import * as mnRead from "../../../services/mn/read.ts";
import {
  serializeChecksum,
  serializeObjectList,
  serializeObjectLocationList,
  serializeSystemMetadata,
} from "../../../types/index.ts";
import { callInfo, sendTrue, sendXml } from "../../call.ts";
import { DEFAULT_COUNT, MAX_COUNT } from "../../list-query.ts";
import { readMultipart } from "../../multipart.ts";
import { dateRange, integerParam, type Query, stringParam } from "../../params.ts";
import { identifierAfter, pathAfter, requiredId } from "../../path-id.ts";
import { answerObjectGet, answerObjectHead } from "../mn/object-response.ts";
import { registerQueryRoutes } from "../mn/query.ts";
import type { RouteScope } from "../scope.ts";

export const CN_QUERY_METHODS = {
  list: "CNRead.listQueryEngines",
  describe: "CNRead.getQueryEngineDescription",
  query: "CNRead.query",
};

export function registerCnReadRoutes(app: FastifyInstance, scope: RouteScope): void {
  const { ctx, version, prefix } = scope;
  const objectPrefix = `${prefix}/object/`;

  app.get(`${prefix}/object`, { config: { apiMethod: "CNRead.listObjects" } }, async (request, reply) => {
    const query = request.query as Query;
    const formatId = stringParam(query, "formatId");
    const identifier = stringParam(query, "identifier");
    const nodeId = stringParam(query, "nodeId");
    const page = await mnRead.listObjects(
      ctx,
      callInfo(request),
      {
        ...dateRange(query),
        ...(formatId ? { formatId } : {}),
        ...(identifier ? { identifier } : {}),
        ...(nodeId ? { nodeId } : {}),
      },
      integerParam(query, "start", 0),
      Math.min(integerParam(query, "count", DEFAULT_COUNT), MAX_COUNT),
    );
    return sendXml(reply, serializeObjectList(page));
  });

  app.get(`${objectPrefix}*`, { config: { apiMethod: "CNRead.get" } }, async (request, reply) => {
    const id = requiredId(identifierAfter(request, objectPrefix));
    return answerObjectGet(request, reply, scope, (choose) => cnRead.get(ctx, callInfo(request), id, choose));
  });

  app.head(`${objectPrefix}*`, { config: { apiMethod: "CNRead.describe" } }, async (request, reply) => {
    const id = requiredId(identifierAfter(request, objectPrefix));
    return answerObjectHead(request, reply, scope, await mnRead.readableObject(ctx, callInfo(request), id));
  });

  const metaPrefix = `${prefix}/meta/`;
  app.get(`${metaPrefix}*`, { config: { apiMethod: "CNRead.getSystemMetadata" } }, async (request, reply) => {
    const id = requiredId(identifierAfter(request, metaPrefix));
    return sendXml(
      reply,
      serializeSystemMetadata(await cnRead.getSystemMetadata(ctx, callInfo(request), id), version),
    );
  });

  const checksumPrefix = `${prefix}/checksum/`;
  app.get(`${checksumPrefix}*`, { config: { apiMethod: "CNRead.getChecksum" } }, async (request, reply) => {
    const id = requiredId(identifierAfter(request, checksumPrefix));
    return sendXml(reply, serializeChecksum(await cnRead.getChecksum(ctx, callInfo(request), id)));
  });

  // resolve: "HTTP 303 on success with a Location header (SHOULD be the full get URL at the first listed
  // location) and an objectLocationList body".
  const resolvePrefix = `${prefix}/resolve/`;
  app.get(`${resolvePrefix}*`, { config: { apiMethod: "CNRead.resolve" } }, async (request, reply) => {
    const id = requiredId(identifierAfter(request, resolvePrefix));
    const list = await cnRead.resolve(ctx, callInfo(request), id);
    return sendXml(
      reply.code(303).header("Location", list.locations[0]?.url ?? ""),
      serializeObjectLocationList(list),
    );
  });

  if (version === "v2") {
    app.post(
      `${prefix}/synchronize`,
      { config: { apiMethod: "CNRead.synchronize" } },
      async (request, reply) => {
        const body = await readMultipart(request);
        await cnRead.synchronize(ctx, callInfo(request), body.parts.get("pid"));
        return sendTrue(reply);
      },
    );
  }

  // listQueryEngines, getQueryEngineDescription, query (GET and POST, multipart as MetacatUI sends): the same
  // solr engine a Member Node serves, over the CN's index.
  registerQueryRoutes(app, {
    prefix,
    index: ctx.search,
    methods: CN_QUERY_METHODS,
    maxFormBytes: ctx.config.maxDocumentBytes,
    // A Coordinating Node's dataUrl is its CNRead.resolve URL (as DataONE's CN index): 303 to a copy's bytes.
    links: () => ({ dataUrlPrefix: `${ctx.config.baseUrl}/v2/resolve/` }),
  });

  // search: GET /search/{queryType}/{query}, "the rest of the URL goes to" the engine.
  const searchPrefix = `${prefix}/search/`;
  app.get(`${searchPrefix}*`, { config: { apiMethod: "CNRead.search" } }, async (request, reply) => {
    const rest = pathAfter(request, searchPrefix);
    const slash = rest.indexOf("/");
    const queryType = slash < 0 ? rest : rest.slice(0, slash);
    const query = slash < 0 ? "" : rest.slice(slash + 1);
    const params = SolrParams.from(request.query as Query);
    return sendXml(
      reply,
      serializeObjectList(await searchObjects(ctx, callInfo(request), queryType, query, params)),
    );
  });
}
