/**
 * The node's website: a MetacatUI folder the operator brings (the `website` setting), served at `/` of the
 * node's origin beside the API. `/config/config.js` is made from the node's settings (metacatui-config.ts);
 * any other path is the folder's file, or index.html for MetacatUI's own page paths (/data, /view/{pid}, ...),
 * which it routes in the browser; a file of the folder that does not exist is 404. Paths under `{basePath}` stay
 * the API's: unknown ones get its NotImplemented answer.
 */
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../../../config/config.ts";
import { websiteEntries } from "../../../config/website-entries.ts";
import { markFileRequest } from "../../file-misses.ts";
import { metacatUiConfigScript } from "./metacatui-config.ts";

type SiteConfig = Readonly<
  Pick<Config, "baseUrl" | "basePath" | "nodeName" | "nodeId" | "oidcProviders" | "cnBaseUrl">
>;

export async function registerWebsite(app: FastifyInstance, config: SiteConfig, dir: string): Promise<void> {
  await app.register(fastifyStatic, { root: dir, serve: false });
  const entries = websiteEntries(dir);
  const api = config.basePath === "" ? undefined : config.basePath;
  const inApi = (url: string) => api !== undefined && (url === api || url.startsWith(`${api}/`));

  app.get("/config/config.js", async (_request, reply) =>
    // Read at each request: a node on port 0 knows its base URL only once it listens.
    reply
      .header("cache-control", "no-cache")
      .type("text/javascript; charset=utf-8")
      .send(metacatUiConfigScript(config)),
  );
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    const url = decoded((request.raw.url ?? "/").split("?")[0] ?? "/");
    if (inApi(url)) return reply.callNotFound();
    const first = url.split("/")[1] ?? "";
    // index.html names its scripts with a cache-buster; it must be fetched again after an upgrade.
    if (!entries.has(first)) return reply.header("cache-control", "no-cache").sendFile("index.html");
    // @fastify/static (send) keeps the file inside the folder: ".." segments and dotfiles are refused; a file
    // that is not there is a 404 (file-misses.ts).
    markFileRequest(request);
    return reply.sendFile(url.slice(1));
  };
  // HEAD as GET (the node does not add HEAD routes by itself: the API's HEAD answers are its own).
  app.route({ method: ["GET", "HEAD"], url: "/", handler: page });
  app.route({ method: ["GET", "HEAD"], url: "/*", handler: page });
}

/** The path as a file name; a malformed escape names no file (then MetacatUI's page answers). */
function decoded(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return "/";
  }
}
