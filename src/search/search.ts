/**
 * The query engine: Solr parameters in, a Solr-shaped result out. Every query is limited to what the caller
 * may read (public documents, and those whose readPermission, writePermission, changePermission or
 * rightsHolder holds one of the caller's subjects), administrators excepted; archived documents are left out
 * unless the request has an `archived` parameter (`archived=archived:*`, as DataONE's Solr front end) or the
 * query itself asks about `archived`.
 */
import { accessCondition, notArchived } from "../db/search/conditions.ts";
import { orderBy } from "../db/search/order-by.ts";
import { InvalidRequest } from "../errors/exceptions.ts";
import { type FacetCounts, type FacetSource, facetCounts, sqlFacetSource } from "./facets.ts";
import { type Grouped, groupResults } from "./group.ts";
import type { StoredDoc } from "./index-rows.ts";
import { Bitset } from "./memory/bitset.ts";
import { matching } from "./memory/evaluate.ts";
import { memoryFacetSource } from "./memory/facet-source.ts";
import { topDocs } from "./memory/top-docs.ts";
import type { SolrParams } from "./params.ts";
import { and, type Condition, fieldsOf, translateQuery } from "./query-sql.ts";
import type { SearchIndex } from "./search-index.ts";
import { selectFields } from "./select-fields.ts";
import { sortKeys } from "./sort.ts";
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

/** Largest page (rows) one request may ask for. */
export const MAX_ROWS = 50_000;

/** What identifies a request to the caches: its parameters and the caller's subjects. */
export function requestKey(params: SolrParams, caller: SearchCaller, ...more: string[]): string {
  return JSON.stringify([...more, params.entries, caller === "all" ? "all" : [...caller.subjects].sort()]);
}

/** A search, answered from the result cache when the same caller asked the same since the index last changed. */
export async function search(
  index: SearchIndexHandle,
  params: SolrParams,
  caller: SearchCaller,
): Promise<SearchResponse> {
  const began = performance.now();
  const cache = index.cache;
  const key = requestKey(params, caller);
  const generation = cache.generation();
  const cached = cache.get<SearchResponse>("result", key);
  if (cached) return { ...cached, qtime: Math.round(performance.now() - began) };
  const result = await searchUncached(index, params, caller);
  cache.set("result", key, result, generation);
  return result;
}

/**
 * A search answered from the index itself (never the result cache): from the engine's memory (the clauses'
 * document sets, the fields' values) while it can be trusted, else (and for grouping) from SQL alone.
 */
export async function searchUncached(
  index: SearchIndexHandle,
  params: SolrParams,
  caller: SearchCaller,
): Promise<SearchResponse> {
  const began = performance.now();
  const parts = filterParts(index, params, caller);
  const where = and(parts);
  const start = params.int("start", 0, 0, Number.MAX_SAFE_INTEGER);
  const rows = params.int("rows", 10, 0, MAX_ROWS);
  const keys = sortKeys(params.get("sort"));
  const translate = filterContext(index, params);
  const response: SearchResponse = { params: params.echo(), numFound: 0, start, docs: [], qtime: 0 };
  const memory = params.bool("group") ? undefined : index.memory();
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
    if (params.bool("group")) {
      response.grouped = await groupResults(index, params, where, orderBy(keys));
    } else if (rows > 0 && start < response.numFound) {
      pids = await index.db.search.pageOfPids(where, orderBy(keys), rows, start);
    }
    source = sqlFacetSource(index, where, translate);
  }
  if (pids.length > 0) {
    const stored = await index.db.search.readStoredDocs(pids);
    const pick = selectFields(params.get("fl"));
    response.docs = pids.flatMap((pid) => {
      const doc = stored.get(pid);
      return doc ? [pick(doc)] : [];
    });
  }
  if (params.bool("facet")) response.facets = await facetCounts(index, params, where, source);
  if (params.bool("stats")) response.stats = await statsFor(index, params, where, response.numFound);
  response.qtime = Math.round(performance.now() - began);
  return response;
}

function filterContext(index: SearchIndexHandle, params: SolrParams) {
  return (query: string) => translateQuery(query, translateOptions(index, params));
}

/**
 * Clauses without an operator are joined by AND, as DataONE's indexes answer them: the Coordinating Nodes' search
 * schema and Metacat's (the Member Nodes') both say `<solrQueryParser defaultOperator="AND"/>`. So d1_cli's
 * `id:X dateModified:[* TO *]` finds X alone. A request's q.op overrides it.
 */
export const DEFAULT_OPERATOR = "AND";

function translateOptions(index: SearchIndexHandle, params: SolrParams) {
  const op = params.get("q.op")?.toUpperCase();
  if (op !== undefined && op !== "AND" && op !== "OR")
    throw new InvalidRequest(`q.op must be AND or OR (not ${op}).`);
  return {
    dialect: index.dialect,
    defaultField: params.get("df") ?? "text",
    defaultOperator: (op ?? DEFAULT_OPERATOR) as "AND" | "OR",
  };
}

/** q, every fq, the caller's access and the archived rule: the conditions a document must all meet. */
function filterParts(index: SearchIndexHandle, params: SolrParams, caller: SearchCaller): Condition[] {
  const options = translateOptions(index, params);
  const queries = [params.get("q") ?? "*:*", ...params.all("fq")];
  const parts = queries.map((q) => translateQuery(q, options));
  const archivedParam = params.all("archived");
  const asksArchived = queries.some((q) => fieldsOf(q).has("archived"));
  if (archivedParam.length > 0) {
    for (const q of archivedParam) parts.push(translateQuery(q, options));
  } else if (!asksArchived) {
    parts.push(notArchived());
  }
  if (caller !== "all") parts.push(accessCondition(index.dialect, [...caller.subjects]));
  return parts;
}
