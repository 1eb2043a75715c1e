/**
 * The CN-shaped reads MetacatUI makes from `{d1CNBaseUrl}{d1CNService}` (AppModel.js), served by a Member Node
 * that runs without a Coordinating Node at `{basePath}/cn/v2`, beside `{basePath}/portal`: MetacatUI's
 * `d1CNBaseUrl` is the node's base URL and `d1CNService` is `/cn/v2` (docs/decisions.md):
 * - `accounts/{subject}` (getSubjectInfo) and `accounts?query=` (listSubjects): the people who signed in here;
 * - `node` (listNodes): a nodeList with this node alone; `formats`, `formats/{id}`: the node's format list;
 * - `resolve/{id}`: 303 to this node's copy; `diag/subject` (echoCredentials): MetacatUI's checkTokenUrl.
 */
import type { FastifyInstance } from "fastify";
import type { NodeContext } from "../../../context/node-context.ts";
import { NotFound } from "../../../errors/exceptions.ts";
import { capabilities } from "../../../services/mn/core.ts";
import * as loneCn from "../../../services/website/lone-cn.ts";
import {
  serializeNodeList,
  serializeObjectFormat,
  serializeObjectFormatList,
  serializeObjectLocationList,
  serializeSubjectInfo,
} from "../../../types/index.ts";
import { callInfo, sendXml } from "../../call.ts";
import { integerParam, type Query, stringParam } from "../../params.ts";
import { identifierAfter, requiredId } from "../../path-id.ts";

const MAX_PEOPLE = 1000;

export function registerLoneCnReads(
  app: FastifyInstance,
  ctx: NodeContext,
  people: loneCn.PeopleRecords | undefined,
): void {
  const prefix = `${ctx.config.basePath}/cn/v2`;
  const accounts = `${prefix}/accounts`;
  // MetacatUI's people lookup asks for `accounts/?query=` (its accountsUrl ends in a slash).
  for (const path of [accounts, `${accounts}/`]) {
    app.get(path, { config: { apiMethod: "CNIdentity.listSubjects" } }, async (request, reply) => {
      const query = request.query as Query;
      const count = Math.min(integerParam(query, "count", 100), MAX_PEOPLE);
      const info = await loneCn.listPeople(
        people,
        stringParam(query, "query") ?? "",
        integerParam(query, "start", 0),
        count,
      );
      return sendXml(reply, serializeSubjectInfo(info));
    });
  }
  app.get(`${accounts}/*`, { config: { apiMethod: "CNIdentity.getSubjectInfo" } }, async (request, reply) => {
    const subject = requiredId(identifierAfter(request, `${accounts}/`));
    return sendXml(reply, serializeSubjectInfo(await loneCn.subjectInfo(people, subject)));
  });

  app.get(
    `${prefix}/diag/subject`,
    { config: { apiMethod: "CNDiagnostic.echoCredentials" } },
    async (request, reply) =>
      sendXml(reply, serializeSubjectInfo(await loneCn.echoCredentials(people, callInfo(request)))),
  );

  // MetacatUI asks for `node/` (its nodeServiceUrl ends in a slash).
  for (const path of [`${prefix}/node`, `${prefix}/node/`]) {
    app.get(path, { config: { apiMethod: "CNCore.listNodes" } }, async (_request, reply) =>
      sendXml(reply, serializeNodeList([capabilities(ctx)], "v2")),
    );
  }

  app.get(`${prefix}/formats`, { config: { apiMethod: "CNCore.listFormats" } }, async (_request, reply) =>
    sendXml(reply, serializeObjectFormatList(ctx.formats.all(), "v2")),
  );
  app.get(`${prefix}/formats/*`, { config: { apiMethod: "CNCore.getFormat" } }, async (request, reply) => {
    const formatId = identifierAfter(request, `${prefix}/formats/`);
    const format = ctx.formats.get(formatId);
    if (!format) throw new NotFound(`No object format "${formatId}" is registered.`);
    return sendXml(reply, serializeObjectFormat(format, "v2"));
  });

  // resolve: "HTTP 303 on success with a Location header ... and an objectLocationList body".
  app.get(`${prefix}/resolve/*`, { config: { apiMethod: "CNRead.resolve" } }, async (request, reply) => {
    const id = requiredId(identifierAfter(request, `${prefix}/resolve/`));
    const list = await loneCn.resolve(ctx, callInfo(request), id);
    return sendXml(
      reply.code(303).header("Location", list.locations[0]?.url ?? ""),
      serializeObjectLocationList(list),
    );
  });
}
