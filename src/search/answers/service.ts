/**
 * The query service both node roles call: engine list, engine description and query. The caller's session
 * decides what a query may see (administrators and Coordinating Nodes see everything).
 */
import { readersOf } from "../../auth/readers.ts";
import type { Session } from "../../auth/session.ts";
import { NotFound } from "../../errors/exceptions.ts";
import type { SearchRequest } from "../query/request.ts";
import type { AnswerLinks } from "../schema/data-url.ts";
import { cachedAnswer, type WriteAnswer } from "./answer-cache.ts";
import { QUERY_ENGINES, SOLR_ENGINE, serializeQueryEngineDescription } from "./engine-description.ts";
import { solrJsonBytes, solrXml } from "./response.ts";
import { requestKey, type SearchCaller, type SearchIndexHandle, searchUncached } from "./search.ts";
import { utf8Bytes } from "./utf8-bytes.ts";

export function listQueryEngines(): readonly string[] {
  return QUERY_ENGINES;
}

export function queryEngineDescription(engine: string): string {
  requireEngine(engine);
  return serializeQueryEngineDescription();
}

/** Caller subjects as the index filters them (the readers of src/auth/readers.ts). */
export function searchCaller(session: Session): SearchCaller {
  const readers = readersOf(session);
  return readers === "all" ? "all" : { subjects: readers };
}

export interface QueryAnswer {
  contentType: string;
  /** The answer as UTF-8, as the reply sends it. */
  body: Buffer;
}

/**
 * Run a Solr query (of the engine requireEngine accepted); the answer is in the format `wt` names. `links`: the
 * URLs the node serves its documents' bytes at (`dataUrl`), from its base URL at the time of the request.
 */
export async function runQuery(
  index: SearchIndexHandle,
  request: SearchRequest,
  caller: SearchCaller,
  links?: AnswerLinks,
): Promise<QueryAnswer> {
  const { wt } = request;
  const began = performance.now();
  const key = requestKey(request, caller, links, wt);
  const body = await cachedAnswer(index.cache, key, began, async () => {
    const result = await searchUncached(index, request, caller, links);
    const write: WriteAnswer = (qtime, take) => {
      const timed = { ...result, qtime };
      return wt === "json" ? solrJsonBytes(timed, take) : take(utf8Bytes(solrXml(timed)));
    };
    return { docs: result.docs, write };
  });
  return {
    contentType: wt === "json" ? "application/json; charset=utf-8" : "text/xml; charset=utf-8",
    body,
  };
}

/** NotFound unless `engine` is one this node has. */
export function requireEngine(engine: string): void {
  if (engine !== SOLR_ENGINE) {
    throw new NotFound(`There is no query engine "${engine}"; the engines are: ${QUERY_ENGINES.join(", ")}.`);
  }
}
