/**
 * A Member Node's landing page: MNView's default view of an object, negotiated (src/landing/negotiation.ts)
 * between the HTML page with its schema.org JSON-LD, the JSON-LD alone, DataCite XML and the metadata document
 * itself, with FAIR Signposting level 1 Link headers. Every answer varies by Accept.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { datasetJsonLd } from "../../../landing/dataset-jsonld.ts";
import { jsonLdScript } from "../../../landing/jsonld-script.ts";
import { landingOffers, negotiate } from "../../../landing/negotiation.ts";
import { landingLinkContexts, linkHeader } from "../../../landing/signposts.ts";
import { landingUrls } from "../../../landing/urls.ts";
import { dataciteRepresentation } from "../../../services/mn/datacite-records.ts";
import { landingRecord } from "../../../services/mn/landing.ts";
import { memberNodeSources } from "../../../services/mn/view.ts";
import type { ViewLinks } from "../../../views/model.ts";
import { renderDefaultPage } from "../../../views/render/default-theme.ts";
import { callInfo } from "../../call.ts";
import { answerRead, contentTag } from "../../conditional-read.ts";
import type { RouteScope } from "../scope.ts";
import { CONTENT_SECURITY_POLICY } from "../view.ts";

export function landingPage(scope: RouteScope) {
  const { ctx } = scope;
  return async (request: FastifyRequest, reply: FastifyReply, id: string, links: ViewLinks) => {
    const call = callInfo(request);
    const urls = landingUrls(ctx.config.baseUrl);
    const { object, record } = await landingRecord(ctx, call, id, urls);
    const crosswalk = dataciteRepresentation(object);
    const contexts = landingLinkContexts(record, { datacite: crosswalk !== undefined });
    reply.header("Vary", "Accept").header("Link", linkHeader(contexts[0]?.links ?? []));
    const offers = landingOffers(record.mediaType, crosswalk !== undefined);
    const chosen = negotiate(request.headers.accept, offers);
    if (!chosen) {
      return reply
        .code(406)
        .type("text/plain; charset=utf-8")
        .send(`This landing page is offered as ${offers.map((o) => o.mediaType).join(", ")}.\n`);
    }
    if (chosen.representation === "document") {
      return reply
        .code(200)
        .type(record.mediaType)
        .header("Content-Length", String(object.sysmeta.size))
        .header("X-Content-Type-Options", "nosniff")
        .send(memberNodeSources(ctx, call).open(object));
    }
    let body: string;
    let type: string;
    if (chosen.representation === "datacite" && crosswalk) {
      body = await crosswalk(ctx, object);
      type = `${chosen.mediaType}; charset=utf-8`;
    } else if (chosen.representation === "json-ld") {
      body = JSON.stringify(datasetJsonLd(record));
      type = "application/ld+json";
    } else {
      body = renderDefaultPage(record.model, links, jsonLdScript(datasetJsonLd(record)));
      type = "text/html; charset=utf-8";
      reply.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    }
    const etag = contentTag(body);
    if (answerRead(request.headers, { etag }, 0, false).status === 304) {
      return reply.code(304).header("ETag", etag).send();
    }
    return reply
      .code(200)
      .header("ETag", etag)
      .type(type)
      .header("X-Content-Type-Options", "nosniff")
      .send(body);
  };
}
