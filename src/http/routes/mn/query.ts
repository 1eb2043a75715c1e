/**
 * MNQuery (v1.1 and v2): listQueryEngines GET /query, getQueryEngineDescription GET /query/{engine}, query
 * GET /query/{engine}/{rest}?params and POST /query/{engine}/ with the parameters as multipart form fields
 * (or an urlencoded form), as MetacatUI sends them. "query is the remainder of the URL passed verbatim to the
 * engine": the path after the engine is ignored, the parameters are Solr's.
 * The Coordinating Node registers the same routes with its own method names (CNRead.*).
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { InvalidRequest } from "../../../errors/exceptions.ts";
import {
  type AnswerLinks,
  listQueryEngines,
  parseSearchRequest,
  queryEngineDescription,
  requireEngine,
  runQuery,
  type SearchIndexHandle,
  SolrParams,
  searchCaller,
} from "../../../search/index.ts";
import { serializeQueryEngineList } from "../../../types/index.ts";
import { sendXml } from "../../call.ts";
import { readTextPart } from "../../multipart.ts";
import { parseQueryString, type Query } from "../../params.ts";

export interface QueryRouteOptions {
  /** The version root, e.g. "/mn/v2" or "/cn/v2". */
  prefix: string;
  index: SearchIndexHandle;
  /** Catalogue names of the three methods (detail codes). */
  methods: { list: string; describe: string; query: string };
  /** Most bytes of parameters a POSTed query form may carry, all fields together (config maxDocumentBytes). */
  maxFormBytes: number;
  /**
   * Where the documents' bytes are fetched (`dataUrl`), asked at each request: the base URL is known once the
   * node listens.
   */
  links: () => AnswerLinks;
}

export const MN_QUERY_METHODS = {
  list: "MNQuery.listQueryEngines",
  describe: "MNQuery.getQueryEngineDescription",
  query: "MNQuery.query",
};

/** Most form fields one POSTed query may carry (MetacatUI sends one per facet field). */
const MAX_FORM_FIELDS = 1000;

export function registerQueryRoutes(app: FastifyInstance, options: QueryRouteOptions): void {
  const { prefix, index, methods, maxFormBytes, links } = options;
  app.register(async (scoped) => {
    scoped.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: maxFormBytes },
      (_request, body, done) => done(null, parseQueryString(String(body))),
    );
    scoped.get(`${prefix}/query`, { config: { apiMethod: methods.list } }, async (_request, reply) =>
      sendXml(reply, serializeQueryEngineList(listQueryEngines())),
    );
    scoped.get(
      `${prefix}/query/:engine`,
      { config: { apiMethod: methods.describe } },
      async (request, reply) =>
        sendXml(reply, queryEngineDescription((request.params as { engine: string }).engine)),
    );
    // The engine first (NotFound), then the parameters, parsed and checked once (InvalidRequest).
    const answer = async (request: FastifyRequest, params: SolrParams) => {
      requireEngine((request.params as { engine: string }).engine);
      return runQuery(index, parseSearchRequest(params), searchCaller(request.session), links());
    };
    scoped.get(
      `${prefix}/query/:engine/*`,
      { config: { apiMethod: methods.query } },
      async (request, reply) => {
        const { contentType, body } = await answer(request, paramsOf(request));
        return reply.type(contentType).send(body);
      },
    );
    scoped.post(
      `${prefix}/query/:engine/*`,
      { config: { apiMethod: methods.query } },
      async (request, reply) => {
        const params = paramsOf(request);
        if (request.isMultipart()) {
          let left = maxFormBytes;
          for await (const part of request.parts({
            limits: { fields: MAX_FORM_FIELDS, parts: MAX_FORM_FIELDS, fieldSize: maxFormBytes + 1 },
          })) {
            const value =
              part.type === "file"
                ? await readTextPart(request, part.file, part.fieldname, left)
                : String(part.value);
            left -= Buffer.byteLength(value);
            if (left < 0 || (part.type === "field" && part.valueTruncated)) {
              throw new InvalidRequest(
                `The query form is larger than this node accepts (${maxFormBytes} bytes).`,
              );
            }
            if (part.type === "field") request.textLimits.reserve(Buffer.byteLength(value));
            params.add(part.fieldname, value);
          }
        } else if (request.body && typeof request.body === "object") {
          for (const [name, value] of Object.entries(request.body as Query)) {
            for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value])
              params.add(name, v);
          }
        } else if (request.body !== undefined && request.body !== null && request.body !== "") {
          throw new InvalidRequest(
            "Send the query parameters as multipart/form-data or a form (or in the URL).",
          );
        }
        const { contentType, body } = await answer(request, params);
        return reply.type(contentType).send(body);
      },
    );
  });
}

/**
 * The URL's parameters, and those of a query string the client put in the path: "query is the remainder of the
 * URL", and clients that treat it as one path segment send `/query/solr/%3Fq%3D...` (decoded once here).
 */
function paramsOf(request: FastifyRequest): SolrParams {
  const url = request.raw.url ?? "";
  const at = url.indexOf("?");
  const path = at < 0 ? url : url.slice(0, at);
  const engineAt = path.indexOf("/query/");
  const rest = engineAt < 0 ? "" : path.slice(engineAt + "/query/".length).replace(/^[^/]*\/?/, "");
  let decoded: string;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    throw new InvalidRequest("The query path is not valid percent-encoding.");
  }
  const inPath = decoded.indexOf("?");
  const params = inPath < 0 ? new SolrParams() : SolrParams.from(parseQueryString(decoded.slice(inPath + 1)));
  for (const [name, value] of SolrParams.from(request.query as Query).entries) params.add(name, value);
  return params;
}
