/**
 * MNView routes: GET /views (listViews) and GET /views/{theme}/{pid}. The DataONE Python client's listViews asks
 * GET /view, so that path answers listViews too. Pages carry a Content-Security-Policy that allows no script at
 * all, on top of the escaping every renderer does.
 */
import type { FastifyInstance } from "fastify";
import { InvalidRequest } from "../../../errors/exceptions.ts";
import { listViews, view } from "../../../services/mn/view.ts";
import { escapeAttr, escapeText } from "../../../types/xml.ts";
import type { ViewLinks } from "../../../views/model.ts";
import { callInfo, sendXml } from "../../call.ts";
import { identifierAfter } from "../../path-id.ts";
import type { RouteScope } from "./context.ts";

const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'";
const V2_TYPES = "http://ns.dataone.org/service/types/v2.0";

export function registerViewRoutes(app: FastifyInstance, scope: RouteScope): void {
  const { ctx, prefix } = scope;
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
      `<ns2:optionList xmlns:ns2="${V2_TYPES}" key="theme" description="${escapeAttr(`Themes for MNView.view: ${options.map((o) => `${o.key} (${o.description})`).join("; ")}`)}">`,
      ...options.map((o) => `<option>${escapeText(o.key)}</option>`),
      "</ns2:optionList>",
    ].join("");
  };
  for (const path of [`${prefix}/views`, `${prefix}/view`]) {
    app.get(path, { config: { apiMethod: "MNView.listViews" } }, async (_request, reply) =>
      sendXml(reply, optionList()),
    );
  }

  app.get(`${viewsPrefix}*`, { config: { apiMethod: "MNView.view" } }, async (request, reply) => {
    const rest = identifierAfter(request, viewsPrefix);
    const slash = rest.indexOf("/");
    const theme = slash < 0 ? "" : rest.slice(0, slash);
    const id = slash < 0 ? "" : rest.slice(slash + 1);
    if (theme === "" || id === "")
      throw new InvalidRequest("The path must be /views/{theme}/{pid}, e.g. /views/default/{pid}.");
    const page = await view(ctx, callInfo(request), theme, id, links);
    return reply
      .code(200)
      .type(page.contentType)
      .header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
      .header("X-Content-Type-Options", "nosniff")
      .send(page.body);
  });
}
