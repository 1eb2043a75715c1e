/**
 * The OAI-PMH 2.0 repository of a Member Node at {basePath}/oai (src/oai/): GET with the arguments in the query
 * string, POST with them in an application/x-www-form-urlencoded body ("repositories must support both the
 * HTTP GET and POST methods", section 3.1.1). Answers are text/xml; protocol errors are inside them.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { NodeContext } from "../../context/node-context.ts";
import { answerOai } from "../../oai/repository.ts";
import { sendXml } from "../call.ts";

/** Largest form body taken (the arguments are short; a resumption token is a few hundred bytes). */
const MAX_FORM_BYTES = 64 * 1024;

export function registerOaiRoutes(app: FastifyInstance, ctx: NodeContext): void {
  const path = `${ctx.config.basePath}/oai`;
  app.register(async (scoped) => {
    scoped.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: MAX_FORM_BYTES },
      (_request, body, done) => done(null, String(body)),
    );
    const config = { apiMethod: "OAI-PMH" };
    scoped.get(path, { config }, async (request, reply) =>
      sendXml(reply, await answerOai(ctx, new URLSearchParams(queryOf(request)))),
    );
    scoped.post(path, { config }, async (request, reply) => {
      const body = typeof request.body === "string" ? request.body : "";
      return sendXml(reply, await answerOai(ctx, new URLSearchParams(body)));
    });
  });
}

/** The raw query string: repeated arguments must stay visible (badArgument). */
function queryOf(request: FastifyRequest): string {
  const at = request.url.indexOf("?");
  return at < 0 ? "" : request.url.slice(at + 1);
}
