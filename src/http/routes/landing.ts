/**
 * What a Member Node serves beside its DataONE API for machines that read landing pages: the FAIR Signposting
 * level 2 linkset of each landing page at {basePath}/linksets/{pid} (RFC 9264: application/linkset+json by
 * default, application/linkset on request); /sitemap.xml, the sitemap index of the landing pages, its files at
 * /sitemaps/objects.xml, and /robots.txt naming it.
 */
import type { FastifyInstance } from "fastify";
import type { NodeContext } from "../../context/node-context.ts";
import { InvalidRequest } from "../../errors/exceptions.ts";
import { negotiate } from "../../landing/negotiation.ts";
import {
  LINKSET_JSON,
  LINKSET_TEXT,
  landingLinkContexts,
  linksetJson,
  linksetText,
} from "../../landing/signposts.ts";
import { type SitemapOptions, sitemapFileXml, sitemapIndexXml } from "../../landing/sitemap.ts";
import { landingUrls } from "../../landing/urls.ts";
import { dataciteRepresentation } from "../../services/mn/datacite-records.ts";
import { landingRecord } from "../../services/mn/landing.ts";
import { callInfo } from "../call.ts";
import { identifierAfter } from "../path-id.ts";

const OFFERS = [
  { mediaType: LINKSET_JSON, write: linksetJson },
  { mediaType: LINKSET_TEXT, write: linksetText },
];

export function registerLandingRoutes(app: FastifyInstance, ctx: NodeContext): void {
  registerLinksets(app, ctx);
  registerSitemap(app, ctx);
}

/** The origin the node is served at: its base URL without the base path. */
function originOf(ctx: NodeContext): string {
  const { baseUrl, basePath } = ctx.config;
  return basePath !== "" && baseUrl.endsWith(basePath) ? baseUrl.slice(0, -basePath.length) : baseUrl;
}

function registerSitemap(app: FastifyInstance, ctx: NodeContext): void {
  const options = (): SitemapOptions => {
    const origin = originOf(ctx);
    return {
      db: ctx.db,
      urls: landingUrls(ctx.config.baseUrl),
      formatIds: ctx.formats
        .all()
        .filter((f) => f.formatType === "METADATA")
        .map((f) => f.formatId),
      fileUrls: ctx.config.sitemapFileUrls,
      fileUrl: (after) =>
        `${origin}/sitemaps/objects.xml${after === undefined ? "" : `?after=${encodeURIComponent(after)}`}`,
    };
  };
  app.get("/robots.txt", async (_request, reply) =>
    reply
      .type("text/plain; charset=utf-8")
      .send(`User-agent: *\nAllow: /\n\nSitemap: ${originOf(ctx)}/sitemap.xml\n`),
  );
  app.get("/sitemap.xml", async (_request, reply) =>
    reply.type("application/xml; charset=utf-8").send(sitemapIndexXml(options())),
  );
  app.get("/sitemaps/objects.xml", async (request, reply) => {
    const after = (request.query as Record<string, unknown>).after;
    if (after !== undefined && (typeof after !== "string" || after === ""))
      throw new InvalidRequest("The parameter after must be one identifier, as /sitemap.xml names it.");
    return reply.type("application/xml; charset=utf-8").send(sitemapFileXml(options(), after));
  });
}

function registerLinksets(app: FastifyInstance, ctx: NodeContext): void {
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
    const { object, record } = await landingRecord(
      ctx,
      callInfo(request),
      id,
      landingUrls(ctx.config.baseUrl),
    );
    const contexts = landingLinkContexts(record, { datacite: dataciteRepresentation(object) !== undefined });
    return reply.code(200).type(chosen.mediaType).send(chosen.write(contexts));
  });
}
