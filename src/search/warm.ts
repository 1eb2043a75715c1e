/**
 * Warming, as Solr's firstSearcher listeners do: once a node serves, the query MetacatUI's search page opens
 * with runs once in the background, so the engine's memory (the catalog filter's documents, the facet fields'
 * values, the page order) is read before the first visitor asks, not while they wait. Only for indexes large
 * enough for that to matter; a failure only means the first visitor waits.
 */

import { type SearchIndexHandle, searchUncached } from "./answers/search.ts";
import { SolrParams } from "./query/params.ts";
import { parseSearchRequest } from "./query/parse-request.ts";
import type { SearchRequest } from "./query/request.ts";

/** Below this many documents the memory is read in well under a second: no warming. */
const WARM_FROM = 5000;

/** The MetacatUI search page's query, as a request. */
export function searchPageRequest(): SearchRequest {
  return parseSearchRequest(searchPageParams());
}

/** The MetacatUI search page: catalog filter, default fields, facets as Search.js asks for them. */
export function searchPageParams(): SolrParams {
  const params = new SolrParams();
  params.add(
    "q",
    "(-obsoletedBy:* AND formatType:METADATA AND -formatId:*dataone.org\\/collections* AND -formatId:*dataone.org\\/portals*)",
  );
  params.add("rows", "25");
  params.add("sort", "dateUploaded desc");
  params.add(
    "fl",
    "id,seriesId,title,origin,pubDate,dateUploaded,abstract,resourceMap,beginDate,endDate,read_count_i,geohash_9,datasource,isPublic,project,documents,label,logo,formatId,northBoundCoord,southBoundCoord,eastBoundCoord,westBoundCoord",
  );
  params.add("start", "0");
  params.add("wt", "json");
  params.add("facet", "true");
  for (const f of [
    "keywords",
    "origin",
    "family",
    "species",
    "genus",
    "kingdom",
    "phylum",
    "order",
    "class",
    "site",
  ]) {
    params.add("facet.field", f);
  }
  params.add("facet.mincount", "1");
  params.add("facet.limit", "-1");
  params.add("facet.sort", "count");
  return params;
}

/** Has the memory read and runs the search-page query once if the index is large; resolves when done (never rejects). */
export async function warmSearch(
  index: SearchIndexHandle,
  onError: (error: unknown) => void,
  minimum = WARM_FROM,
): Promise<void> {
  try {
    if (!(await index.db.search.holdsAtLeast(minimum))) return;
    // A large index reads its memory in the background (SQL answering meanwhile): wait for that read.
    await index.prepare();
    await searchUncached(index, searchPageRequest(), { subjects: new Set(["public"]) });
  } catch (error) {
    onError(error);
  }
}
