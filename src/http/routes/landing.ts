/**
 * What a Member Node serves beside its DataONE API for machines that read landing pages: the FAIR Signposting
 * level 2 linkset of each landing page at {basePath}/linksets/{pid} (RFC 9264: application/linkset+json by
 * default, application/linkset on request).
 */
import type { FastifyInstance } from "fastify";
import { InvalidRequest } from "../../errors/exceptions.ts";
import { dataciteCrosswalk } from "../../landing/datacite-representation.ts";
import { negotiate } from "../../landing/negotiation.ts";
import {
  LINKSET_JSON,
  LINKSET_TEXT,
  landingLinkContexts,
  linksetJson,
  linksetText,
} from "../../landing/signposts.ts";
import { landingUrls } from "../../landing/urls.ts";
import type { NodeContext } from "../../services/context.ts";
import { landingRecord } from "../../services/mn/landing.ts";
import { callInfo } from "../call.ts";
import { identifierAfter } from "../path-id.ts";

const OFFERS = [
  { mediaType: LINKSET_JSON, write: linksetJson },
  { mediaType: LINKSET_TEXT, write: linksetText },
];

export function registerLandingRoutes(app: FastifyInstance, ctx: NodeContext): void {
  const linksets = `${ctx.config.basePath}/linksets/`;
  app.get(`${linksets}*`, async (request, reply) => {
    const id = identifierAfter(request, linksets);
    if (id === "") throw new InvalidRequest(`The path must be ${linksets}{pid}.`);
    reply.header("Vary", "Accept");
    const chosen = negotiate(request.headers.accept, OFFERS);
    if (!chosen) {
      return reply
        .code(406)
        .type("text/plain; charset=utf-8")
        .send(`A linkset is offered as ${LINKSET_JSON} or ${LINKSET_TEXT}.\n`);
    }
    const { record } = await landingRecord(ctx, callInfo(request), id, landingUrls(ctx.config.baseUrl));
    const contexts = landingLinkContexts(record, { datacite: dataciteCrosswalk() !== undefined });
    return reply.code(200).type(chosen.mediaType).send(chosen.write(contexts));
  });
}
