/**
 * The query engine: a SearchRequest (parsed once from Solr's parameters: parse-request.ts) in, a Solr-shaped
 * result out. Every query is limited to what the caller may read (public documents, and those whose
 * readPermission, writePermission, changePermission or rightsHolder holds one of the caller's subjects),
 * administrators excepted; archived documents are left out
 * unless the request has an `archived` parameter (`archived=archived:*`, as DataONE's Solr front end) or the
 * query itself asks about `archived`.
 */

import { Bitset } from "../memory/bitset.ts";
import { OverBudget } from "../memory/chunked-reads.ts";
import { matching } from "../memory/evaluate.ts";
import { memoryFacetSource } from "../memory/facet-source.ts";
import { ARRAY_SLOT } from "../memory/heap-sizes.ts";
import type { SearchMemory } from "../memory/index.ts";
import { topDocs } from "../memory/top-docs.ts";
import { and, type Condition, fieldsOf, translateQuery } from "../query/query-sql.ts";
import type { SearchRequest } from "../query/request.ts";
import { selectFields } from "../query/select-fields.ts";
import type { AnswerLinks } from "../schema/data-url.ts";
import type { StoredDoc } from "../schema/index-rows.ts";
import type { SearchIndex } from "../search-index.ts";
import { accessCondition, notArchived } from "../store/conditions.ts";
import { orderBy } from "../store/order-by.ts";
import { type FacetCounts, type FacetSource, facetCounts } from "./facets.ts";
import { type Grouped, groupResults } from "./group.ts";
import { sqlFacetSource } from "./sql-facet-source.ts";
import { type Stats, statsFor } from "./stats.ts";

/** Who asks: every subject the caller stands for, or "all" for node administrators (and CNs). */
export type SearchCaller = { subjects: ReadonlySet<string> } | "all";

/** The index a search reads (search-index.ts). */
export type SearchIndexHandle = SearchIndex;

export interface SearchResponse {
  params: Record<string, string | string[]>;
  numFound: number;
  start: number;
  docs: StoredDoc[];
  facets?: FacetCounts;
  stats?: Stats;
  grouped?: Grouped;
  qtime: number;
}

/**
 * What identifies a request to the caches: its parameters, the caller's subjects and the answer's links (the
 * URLs its documents show).
 */
export function requestKey(
  request: SearchRequest,
  caller: SearchCaller,
  links: AnswerLinks | undefined,
  ...more: string[]
): string {
  return JSON.stringify([
    ...more,
    request.raw,
    links?.dataUrlPrefix ?? null,
    caller === "all" ? "all" : [...caller.subjects].sort(),
  ]);
}

/**
 * A search, answered from the result cache when the same caller asked the same since the index last changed.
 * With `links`, documents show their `dataUrl` (schema/data-url.ts).
 */
export async function search(
  index: SearchIndexHandle,
  request: SearchRequest,
  caller: SearchCaller,
  links?: AnswerLinks,
): Promise<SearchResponse> {
  const began = performance.now();
  const cache = index.cache;
  const key = requestKey(request, caller, links);
  const generation = cache.generation();
  const cached = cache.get<SearchResponse>("result", key);
  if (cached) return { ...cached, qtime: Math.round(performance.now() - began) };
  const result = await searchUncached(index, request, caller, links);
  cache.set("result", key, result, generation, resultBytes(result));
  return result;
}

/**
 * About the heap bytes of a kept result: its documents as their JSON (strings as the heap holds them, near
 * enough), a pointer slot for each facet value and count (the values are the memory's own strings), 1 KiB more.
 */
function resultBytes(result: SearchResponse): number {
  let bytes = 1024 + JSON.stringify(result.docs).length;
  for (const flat of Object.values(result.facets?.facet_fields ?? {})) bytes += flat.length * ARRAY_SLOT;
  return bytes;
}

/**
 * A search answered from the index itself (never the result cache): from the engine's memory (the clauses'
 * document sets, the fields' values) while it can be trusted, else (and for grouping) from SQL alone.
 */
export async function searchUncached(
  index: SearchIndexHandle,
  request: SearchRequest,
  caller: SearchCaller,
  links?: AnswerLinks,
): Promise<SearchResponse> {
  const memory = request.group ? undefined : await index.memoryForQuery();
  if (!memory) return answerFrom(index, undefined, request, caller, links);
  try {
    const response = await answerFrom(index, memory, request, caller, links);
    index.keepWithinBudget();
    return response;
  } catch (error) {
    if (!(error instanceof OverBudget)) throw error;
    // A structure this query needed would not fit: the memory is let go of, and SQL answers.
    index.overBudgetWhileReading(memory, error);
    return answerFrom(index, undefined, request, caller, links);
  }
}

/** A search answered from `memory` (also one still being read: memory-warm.ts), or from SQL alone without it. */
export async function answerFrom(
  index: SearchIndexHandle,
  memory: SearchMemory | undefined,
  request: SearchRequest,
  caller: SearchCaller,
  links?: AnswerLinks,
): Promise<SearchResponse> {
  const began = performance.now();
  const translate = translator(index, request);
  const parts = filterParts(index, request, caller, translate);
  const where = and(parts);
  const { start, rows, sort: keys } = request;
  const response: SearchResponse = { params: { ...request.echo }, numFound: 0, start, docs: [], qtime: 0 };
  let pids: string[] = [];
  let source: FacetSource;
  if (memory) {
    const sets = [];
    for (const part of parts) sets.push(await matching(memory, part));
    const matches = Bitset.intersection(sets);
    response.numFound = matches.count();
    if (rows > 0 && start < response.numFound)
      pids = (await topDocs(memory, matches, keys, start + rows)).slice(start);
    source = memoryFacetSource(memory, matches, response.numFound, translate);
  } else {
    response.numFound = await index.db.search.countMatching(where);
    if (request.group) {
      response.grouped = await groupResults(index, request, request.group, where, orderBy(keys), links);
    } else if (rows > 0 && start < response.numFound) {
      pids = await index.db.search.pageOfPids(where, orderBy(keys), rows, start);
    }
    source = sqlFacetSource(index, where, response.numFound, translate);
  }
  if (pids.length > 0) {
    const stored = await index.db.search.readStoredDocs(pids);
    const pick = selectFields(request.fields, links);
    response.docs = pids.flatMap((pid) => {
      const doc = stored.get(pid);
      return doc ? [pick(doc)] : [];
    });
  }
  if (request.facet) response.facets = await facetCounts(index, request.facet, where, source);
  if (request.stats) response.stats = await statsFor(index, request.stats, where, response.numFound);
  response.qtime = Math.round(performance.now() - began);
  return response;
}

/** A query of the request (q, fq, archived, facet.query) as its SQL condition. */
function translator(index: SearchIndexHandle, request: SearchRequest): (query: string) => Condition {
  const options = {
    dialect: index.dialect,
    defaultField: request.defaultField,
    defaultOperator: request.defaultOperator,
  };
  return (query) => translateQuery(query, options);
}

/** q, every fq, the caller's access and the archived rule: the conditions a document must all meet. */
function filterParts(
  index: SearchIndexHandle,
  request: SearchRequest,
  caller: SearchCaller,
  translate: (query: string) => Condition,
): Condition[] {
  const queries = [request.q, ...request.fq];
  const parts = queries.map(translate);
  const asksArchived = queries.some((q) => fieldsOf(q).has("archived"));
  if (request.archived.length > 0) {
    for (const q of request.archived) parts.push(translate(q));
  } else if (!asksArchived) {
    parts.push(notArchived());
  }
  if (caller !== "all") parts.push(accessCondition(index.dialect, [...caller.subjects]));
  return parts;
}
