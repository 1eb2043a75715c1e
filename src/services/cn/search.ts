/**
 * CNRead.search, GET /search/{queryType}/{query}: "queryType names the search engine; the rest of the URL goes
 * to it. Returns a list of matching objects." The `solr` engine answers an ObjectList of the documents the
 * caller may see (the query engine's access and archived rules), in the engine's order, paged by Solr's `start`
 * and `rows` (default 10). The rest of the URL is the Solr query `q` itself (`/search/solr/title:soil`), or a
 * parameter string when it begins with "?" (`/search/solr/%3Fq%3Dtitle:soil%26fq%3D...`); parameters in the
 * URL's own query string are added to those.
 */

import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { NotImplemented } from "../../errors/exceptions.ts";
import { parseSearchRequest, SOLR_ENGINE, SolrParams, search, searchCaller } from "../../search/index.ts";
import type { ObjectInfo, Slice } from "../../types/index.ts";

/** Parameters that shape parts of a Solr answer an ObjectList has no room for (fields, facets, groups, ...). */
const ANSWER_SHAPING = /^(fl|wt|facet|stats|group|hl|debug|echoParams)(\.|$)/;

export async function searchObjects(
  ctx: NodeContext,
  call: CallInfo,
  queryType: string,
  query: string,
  urlParams: SolrParams,
): Promise<Slice<ObjectInfo>> {
  if (queryType !== SOLR_ENGINE) {
    throw new NotImplemented(
      `There is no search engine "${queryType}" on this Coordinating Node; the engines are: ${SOLR_ENGINE}.`,
    );
  }
  const params = new SolrParams();
  for (const [name, value] of [...queryParams(query).entries, ...urlParams.entries]) {
    if (!ANSWER_SHAPING.test(name)) params.add(name, value);
  }
  params.add("fl", "id");
  const result = await search(ctx.search, parseSearchRequest(params), searchCaller(call.session));
  const pids = result.docs.map((doc) => String(doc.id));
  const objects = await ctx.db.objects.getMany(pids);
  const items = pids.flatMap((pid) => {
    const sysmeta = objects.get(pid)?.sysmeta;
    if (!sysmeta) return [];
    const { identifier, formatId, checksum, size } = sysmeta;
    // Stored system metadata always has its modification date (set by every write).
    const dateSysMetadataModified = sysmeta.dateSysMetadataModified ?? sysmeta.dateUploaded ?? new Date(0);
    return [{ identifier, formatId, checksum, size, dateSysMetadataModified }];
  });
  return { start: result.start, total: result.numFound, items };
}

/** The rest of the URL after the engine (decoded once): a "?"-led parameter string, or the query `q`. */
function queryParams(query: string): SolrParams {
  if (query.startsWith("?")) {
    const params = new SolrParams();
    for (const [name, value] of new URLSearchParams(query.slice(1))) params.add(name, value);
    return params;
  }
  const params = new SolrParams();
  if (query !== "") params.add("q", query);
  return params;
}
