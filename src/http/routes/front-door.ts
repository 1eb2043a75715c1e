/**
 * The node's base URL (`{basePath}`, `{basePath}/` and `/`): a browser (an Accept header that names text/html)
 * gets the home page (src/views/home/page.ts); every other client gets exactly what it got before there was a
 * home page, the NotImplemented error any path the node does not serve answers (DataONE clients that probe
 * the base see no change). Only public datasets are counted and listed.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { NodeContext } from "../../context/node-context.ts";
import { NotImplemented } from "../../errors/exceptions.ts";
import { parseSearchRequest, SolrParams, search } from "../../search/index.ts";
import { renderHomePage } from "../../views/home/page.ts";
import { sendError } from "../plugins/errors.ts";

const RECENT = 10;
const PUBLIC = { subjects: new Set(["public"]) };

/** A browser names text/html in its Accept header; API clients send any type, text/xml or nothing. */
function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? "";
  return /(^|,)\s*text\/html\s*(;|,|$)/i.test(accept) && !/text\/html\s*;\s*q=0(\.0*)?\s*(,|$)/i.test(accept);
}

export function registerFrontDoor(app: FastifyInstance, ctx: NodeContext): void {
  const { basePath, nodeId } = ctx.config;
  const paths = new Set([basePath === "" ? "/" : basePath, `${basePath}/`, "/"]);
  // With a website (the `website` setting) the origin's root is the website's.
  if (ctx.config.website) paths.delete("/");
  for (const path of paths) {
    app.get(path, async (request, reply) => {
      if (!wantsHtml(request)) {
        sendError(
          request,
          reply,
          new NotImplemented(
            `${request.method} ${request.url.split("?")[0]} is not an operation this node serves.`,
          ),
          nodeId,
        );
        return reply;
      }
      const found = await search(
        ctx.search,
        parseSearchRequest(
          SolrParams.from({
            q: "formatType:METADATA",
            fl: "id,title,dateUploaded",
            sort: "dateUploaded desc",
            rows: String(RECENT),
          }),
        ),
        PUBLIC,
      );
      const page = renderHomePage({
        nodeName: ctx.config.nodeName,
        nodeDescription: ctx.config.nodeDescription,
        nodeId,
        role: ctx.config.role,
        api: `${basePath}/v2`,
        publicDatasets: found.numFound,
        recent: found.docs.map((doc) => ({
          pid: String(doc.id),
          title: typeof doc.title === "string" ? doc.title : undefined,
          uploaded: doc.dateUploaded === undefined ? undefined : String(doc.dateUploaded),
        })),
      });
      return reply
        .header("cache-control", "no-cache")
        .header("vary", "Accept")
        .header(
          "content-security-policy",
          "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
        )
        .type("text/html; charset=utf-8")
        .send(page);
    });
  }
}
