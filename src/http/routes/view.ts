/**
 * MNView routes: GET /views (listViews) and GET /views/{theme}/{pid}. The DataONE Python client's listViews asks
 * GET /view, so that path answers listViews too. Pages carry a Content-Security-Policy that allows no script at
 * all, on top of the escaping every renderer does.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { CallInfo } from "../../context/node-context.ts";
import { InvalidRequest } from "../../errors/exceptions.ts";
import { listViews, type ViewAnswer, view } from "../../services/mn/view.ts";
import { escapeAttr, escapeText } from "../../types/xml.ts";
import type { ViewLinks } from "../../views/model.ts";
import { themeFor } from "../../views/themes.ts";
import { callInfo, sendXml } from "../call.ts";
import { answerRead, contentTag } from "../conditional-read.ts";
import { identifierAfter } from "../path-id.ts";
import type { RouteScope } from "./scope.ts";

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'";
const V2_TYPES = "http://ns.dataone.org/service/types/v2.0";

export interface ViewRouteOptions {
  /** Catalogue names of the two methods (detail codes). */
  methods: { list: string; view: string };
  /** Renders a page, or names where the page is. */
  render(
    ctx: RouteScope["ctx"],
    call: CallInfo,
    theme: string,
    id: string,
    links: ViewLinks,
  ): Promise<ViewAnswer>;
  /** Themes for the listViews description, e.g. "MNView.view". */
  label: string;
  /** Answers the default theme instead of `render`: a Member Node's landing page (landing-page.ts). */
  landing?: (
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    links: ViewLinks,
  ) => Promise<FastifyReply>;
}

export const MN_VIEW_ROUTES: ViewRouteOptions = {
  methods: { list: "MNView.listViews", view: "MNView.view" },
  render: view,
  label: "MNView.view",
};

export function registerViewRoutes(
  app: FastifyInstance,
  scope: RouteScope,
  options: ViewRouteOptions = MN_VIEW_ROUTES,
): void {
  const { ctx, prefix } = scope;
  const { methods, render, label, landing } = options;
  const viewsPrefix = `${prefix}/views/`;
  const links: ViewLinks = {
    object: (pid) => `${prefix}/object/${encodeURIComponent(pid)}`,
    view: (pid) => `${viewsPrefix}default/${encodeURIComponent(pid)}`,
    package: (pid) =>
      `${prefix}/packages/${encodeURIComponent("application/bagit-097")}/${encodeURIComponent(pid)}`,
  };

  const optionList = () => {
    const options = listViews();
    return [
      `<?xml version="1.0" encoding="UTF-8"?>`,
      `<ns2:optionList xmlns:ns2="${V2_TYPES}" key="theme" description="${escapeAttr(`Themes for ${label}: ${options.map((o) => `${o.key} (${o.description})`).join("; ")}`)}">`,
      ...options.map((o) => `<option>${escapeText(o.key)}</option>`),
      "</ns2:optionList>",
    ].join("");
  };
  for (const path of [`${prefix}/views`, `${prefix}/view`]) {
    app.get(path, { config: { apiMethod: methods.list } }, async (_request, reply) =>
      sendXml(reply, optionList()),
    );
  }

  app.get(`${viewsPrefix}*`, { config: { apiMethod: methods.view } }, async (request, reply) => {
    const rest = identifierAfter(request, viewsPrefix);
    const slash = rest.indexOf("/");
    const theme = slash < 0 ? "" : rest.slice(0, slash);
    const id = slash < 0 ? "" : rest.slice(slash + 1);
    if (theme === "" || id === "")
      throw new InvalidRequest("The path must be /views/{theme}/{pid}, e.g. /views/default/{pid}.");
    if (landing && themeFor(theme).key === "default") return landing(request, reply, id, links);
    const page = await render(ctx, callInfo(request), theme, id, links);
    if ("redirect" in page) return reply.code(303).header("Location", page.redirect).send();
    // A page is whole before it is sent: its entity tag is the hash of its bytes, so it changes exactly when the
    // page does (the object's system metadata or science metadata, the theme).
    const etag = contentTag(page.body);
    if (answerRead(request.headers, { etag }, 0, false).status === 304) {
      return reply.code(304).header("ETag", etag).send();
    }
    return reply
      .code(200)
      .header("ETag", etag)
      .type(page.contentType)
      .header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
      .header("X-Content-Type-Options", "nosniff")
      .send(page.body);
  });
}
