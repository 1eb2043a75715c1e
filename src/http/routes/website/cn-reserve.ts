/**
 * CNCore.reserveIdentifier and hasReservation for a Member Node that runs without a Coordinating Node, at
 * `{basePath}/cn/v2/reserve` beside the CN-shaped reads (cn-reads.ts): "reserves the identifier that is unique
 * and can not be used by any other sessions ... later create/update with the id must come from the reserving
 * principal" (MNStorage.create and update on this node check it). MetacatUI's `reserveServiceUrl` is
 * `{d1CNBaseUrl}{d1CNService}/reserve`: it POSTs `pid` form-encoded (CollectionModel.reserveSeriesId, for a
 * portal's seriesId); the API's multipart `pid` (or `id`) and the Python client's /reserve/{pid} work too.
 * Only those who may create objects here (`submitters`) may reserve: a reservation is the first step of a create.
 */
import type { FastifyInstance } from "fastify";
import type { NodeContext } from "../../../context/node-context.ts";
import * as reservations from "../../../services/cn/reservations.ts";
import { requireSubmitter } from "../../../services/mn/storage.ts";
import { serializeIdentifier } from "../../../types/index.ts";
import { callInfo, sendTrue, sendXml } from "../../call.ts";
import { readMultipart, SIMPLE_VALUE_BYTES } from "../../multipart.ts";
import { type Query, stringParam } from "../../params.ts";
import { identifierAfter, requiredId } from "../../path-id.ts";
import { acceptFormBodies, reservedIdentifierOf } from "../../reserve-body.ts";

export function registerLoneCnReserve(app: FastifyInstance, ctx: NodeContext): void {
  const prefix = `${ctx.config.basePath}/cn/v2/reserve`;
  const reserve = { config: { apiMethod: "CNCore.reserveIdentifier" } };
  app.register(async (scoped) => {
    acceptFormBodies(scoped);
    scoped.post(prefix, reserve, async (request, reply) => {
      requireSubmitter(ctx, callInfo(request), "reserve identifiers for");
      const id = await reservedIdentifierOf(request);
      const pid = await reservations.reserveIdentifier(ctx, callInfo(request), id);
      return sendXml(reply, serializeIdentifier(pid));
    });
    scoped.post(`${prefix}/*`, reserve, async (request, reply) => {
      requireSubmitter(ctx, callInfo(request), "reserve identifiers for");
      const id = requiredId(identifierAfter(request, `${prefix}/`));
      if (request.isMultipart()) await readMultipart(request, { maxPart: SIMPLE_VALUE_BYTES });
      const pid = await reservations.reserveIdentifier(ctx, callInfo(request), id);
      return sendXml(reply, serializeIdentifier(pid));
    });
  });
  // hasReservation: GET /reserve/{pid}?subject= (API text).
  app.get(`${prefix}/*`, { config: { apiMethod: "CNCore.hasReservation" } }, async (request, reply) => {
    const id = requiredId(identifierAfter(request, `${prefix}/`));
    const subject = stringParam(request.query as Query, "subject");
    await reservations.hasReservation(ctx, callInfo(request), id, subject);
    return sendTrue(reply);
  });
}
