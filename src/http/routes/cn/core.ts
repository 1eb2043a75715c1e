/** CNCore routes. */

import type { FastifyInstance, FastifyReply } from "fastify";
import { InvalidRequest, NotFound } from "../../../errors/exceptions.ts";
import * as core from "../../../services/cn/core.ts";
import { getLogRecords } from "../../../services/cn/log.ts";
import { approvedNodes, cnCapabilities } from "../../../services/cn/nodes.ts";
import * as reservations from "../../../services/cn/reservations.ts";
import { requireIdentifier } from "../../../services/identifiers.ts";
import { checkHealth } from "../../../services/ping.ts";
import { algorithmKey, DATAONE_NAME } from "../../../store/index.ts";
import {
  parseSystemMetadata,
  serializeChecksumAlgorithmList,
  serializeIdentifier,
  serializeLog,
  serializeNode,
  serializeNodeList,
  serializeObjectFormat,
  serializeObjectFormatList,
} from "../../../types/index.ts";
import { callInfo, sendTrue, sendXml } from "../../call.ts";
import { logQuery } from "../../list-query.ts";
import {
  holdForSubscribers,
  readMultipart,
  requirePart,
  sysmetaAlgorithm,
  sysmetaSize,
} from "../../multipart.ts";
import { integerParam, type Query, stringParam } from "../../params.ts";
import { identifierAfter, requiredId } from "../../path-id.ts";
import { acceptFormBodies, reservedIdentifierOf } from "../../reserve-body.ts";
import type { RouteScope } from "../scope.ts";

export function registerCnCoreRoutes(app: FastifyInstance, { ctx, version, prefix }: RouteScope): void {
  const capabilities = { config: { apiMethod: "CNCore.getCapabilities" } };
  const sendCapabilities = async (_request: unknown, reply: FastifyReply) =>
    sendXml(reply, serializeNode(cnCapabilities(ctx), version));
  app.get(`${prefix}/`, capabilities, sendCapabilities);
  app.get(prefix, capabilities, sendCapabilities);

  app.get(`${prefix}/monitor/ping`, { config: { apiMethod: "CNCore.ping" } }, async (_request, reply) => {
    await checkHealth(ctx);
    const now = new Date();
    return reply
      .header("Date", now.toUTCString())
      .header("Expires", now.toUTCString())
      .header("Cache-Control", "no-cache, no-store, must-revalidate")
      .type("text/plain; charset=utf-8")
      .send("OK");
  });

  app.get(`${prefix}/node`, { config: { apiMethod: "CNCore.listNodes" } }, async (_request, reply) =>
    sendXml(reply, serializeNodeList(await approvedNodes(ctx), version)),
  );

  app.get(`${prefix}/formats`, { config: { apiMethod: "CNCore.listFormats" } }, async (_request, reply) =>
    sendXml(reply, serializeObjectFormatList(ctx.formats.all(), version)),
  );
  const formatPrefix = `${prefix}/formats/`;
  app.get(`${formatPrefix}*`, { config: { apiMethod: "CNCore.getFormat" } }, async (request, reply) => {
    const formatId = identifierAfter(request, formatPrefix);
    const format = ctx.formats.get(formatId);
    if (!format) throw new NotFound(`No object format "${formatId}" is registered.`);
    return sendXml(reply, serializeObjectFormat(format, version));
  });

  app.get(
    `${prefix}/checksum`,
    { config: { apiMethod: "CNCore.listChecksumAlgorithms" } },
    async (_request, reply) => sendXml(reply, serializeChecksumAlgorithmList(Object.values(DATAONE_NAME))),
  );

  // getLogRecords: "consolidated Log for the whole infrastructure": this CN's own events and those log
  // aggregation harvested from the Member Nodes.
  app.get(`${prefix}/log`, { config: { apiMethod: "CNCore.getLogRecords" } }, async (request, reply) => {
    const { filter, start, count } = logQuery(request.query as Query);
    const page = await getLogRecords(ctx, callInfo(request), filter, start, count);
    return sendXml(reply, serializeLog(page, version));
  });

  // reserveIdentifier: the API text says POST /reserve with the identifier as part "id" (or "pid" in its
  // sample); the Python client posts to /reserve/{pid} with a "pid" part. Every form is accepted.
  const reserve = { config: { apiMethod: "CNCore.reserveIdentifier" } };
  const reservePrefix = `${prefix}/reserve/`;
  // MetacatUI posts the pid form-encoded (reserve-body.ts).
  app.register(async (scoped) => {
    acceptFormBodies(scoped);
    scoped.post(`${prefix}/reserve`, reserve, async (request, reply) => {
      const id = await reservedIdentifierOf(request);
      return sendXml(
        reply,
        serializeIdentifier(await reservations.reserveIdentifier(ctx, callInfo(request), id)),
      );
    });
  });
  app.post(`${reservePrefix}*`, reserve, async (request, reply) => {
    const id = requiredId(identifierAfter(request, reservePrefix));
    if (request.isMultipart()) await readMultipart(request);
    return sendXml(
      reply,
      serializeIdentifier(await reservations.reserveIdentifier(ctx, callInfo(request), id)),
    );
  });

  // hasReservation: GET /reserve/{id}?subject= (API text) or /reserve/{id}/{subject} (Python client). An
  // identifier containing "/" arrives encoded (%2F), so the first raw "/" separates the two.
  app.get(`${reservePrefix}*`, { config: { apiMethod: "CNCore.hasReservation" } }, async (request, reply) => {
    const raw = (request.raw.url ?? "").split("?")[0] ?? "";
    const rest = raw.startsWith(reservePrefix) ? raw.slice(reservePrefix.length) : "";
    const slash = rest.indexOf("/");
    const decode = (text: string) => {
      try {
        return decodeURIComponent(text);
      } catch {
        throw new InvalidRequest(`"${text}" is not valid percent-encoded UTF-8.`);
      }
    };
    const id = requiredId(decode(slash === -1 ? rest : rest.slice(0, slash)));
    const subject =
      slash === -1 ? stringParam(request.query as Query, "subject") : decode(rest.slice(slash + 1));
    await reservations.hasReservation(ctx, callInfo(request), id, subject);
    return sendTrue(reply);
  });

  app.post(
    `${prefix}/generate`,
    { config: { apiMethod: "CNCore.generateIdentifier" } },
    async (request, reply) => {
      const body = await readMultipart(request);
      const id = await reservations.generateIdentifier(ctx, callInfo(request), body.parts.get("scheme"));
      return sendXml(reply, serializeIdentifier(id));
    },
  );

  app.post(
    `${prefix}/meta`,
    { config: { apiMethod: "CNCore.registerSystemMetadata" } },
    async (request, reply) => {
      const body = await readMultipart(request);
      const pid = requireIdentifier(requirePart(body, "pid"), "pid");
      const sysmeta = parseSystemMetadata(requirePart(body, "sysmeta"));
      return sendXml(
        reply,
        serializeIdentifier(await core.registerSystemMetadata(ctx, callInfo(request), pid, sysmeta)),
      );
    },
  );

  if (version === "v2") {
    app.put(
      `${prefix}/meta`,
      { config: { apiMethod: "CNCore.updateSystemMetadata" } },
      async (request, reply) => {
        const body = await readMultipart(request);
        const pid = requireIdentifier(requirePart(body, "pid"), "pid");
        const sysmeta = parseSystemMetadata(requirePart(body, "sysmeta"));
        await core.updateSystemMetadata(ctx, callInfo(request), pid, sysmeta);
        return sendTrue(reply);
      },
    );
  }

  const obsoletedByPrefix = `${prefix}/obsoletedBy/`;
  app.put(
    `${obsoletedByPrefix}*`,
    { config: { apiMethod: "CNCore.setObsoletedBy" } },
    async (request, reply) => {
      const pid = requiredId(identifierAfter(request, obsoletedByPrefix));
      const body = await readMultipart(request);
      const obsoletedBy = requireIdentifier(requirePart(body, "obsoletedByPid"), "obsoletedByPid");
      const serialVersion = integerParam(Object.fromEntries(body.parts), "serialVersion", -1);
      if (serialVersion < 0) throw new InvalidRequest("The serialVersion part is required.", { pid });
      await core.setObsoletedBy(ctx, callInfo(request), pid, obsoletedBy, serialVersion);
      return sendTrue(reply);
    },
  );

  app.post(`${prefix}/object`, { config: { apiMethod: "CNCore.create" } }, async (request, reply) => {
    const call = callInfo(request);
    core.requireTrusted(call, "CNCore.create");
    const body = await readMultipart(request, {
      store: ctx.store,
      objectPart: "object",
      algorithmHint: sysmetaAlgorithm,
      sizeHint: sysmetaSize,
      holdBytes: holdForSubscribers(ctx.changes),
    });
    const staged = body.staged;
    if (!staged) throw new InvalidRequest('The multipart part "object" (the object bytes) is missing.');
    try {
      const pid = requireIdentifier(requirePart(body, "pid"), "pid");
      const sysmeta = parseSystemMetadata(requirePart(body, "sysmeta"));
      const key = algorithmKey(sysmeta.checksum.algorithm);
      if (key && !["md5", "sha1", "sha256"].includes(key) && !staged.digests.extra) {
        await staged.addDigest(sysmeta.checksum.algorithm);
      }
      return sendXml(reply, serializeIdentifier(await core.create(ctx, call, pid, sysmeta, staged)));
    } finally {
      await staged.discard();
    }
  });

  const archivePrefix = `${prefix}/archive/`;
  app.put(`${archivePrefix}*`, { config: { apiMethod: "CNCore.archive" } }, async (request, reply) => {
    const id = requiredId(identifierAfter(request, archivePrefix));
    return sendXml(reply, serializeIdentifier(await core.archive(ctx, callInfo(request), id)));
  });

  const objectPrefix = `${prefix}/object/`;
  app.delete(`${objectPrefix}*`, { config: { apiMethod: "CNCore.delete" } }, async (request, reply) => {
    const id = requiredId(identifierAfter(request, objectPrefix));
    return sendXml(reply, serializeIdentifier(await core.remove(ctx, callInfo(request), id)));
  });
}
