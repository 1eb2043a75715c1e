/**
 * The search module's one port: everything outside src/search reaches it through this file (a layering test
 * holds it to that). The node opens one `SearchIndex` on its database and closes it with itself; what goes in
 * are object changes (the write core's subscriber, bulk indexing and rebuilds, which read objects' records and
 * their bytes through `IndexContext` alone: `IndexedDatabase` and `ObjectBytes`, which the node's database and
 * store satisfy), what comes out are answers (Solr JSON/XML, CNRead.search's results,
 * the engine's status). src/db never imports it; its SQL and tables are src/search/store's.
 */

export { SOLR_ENGINE } from "./answers/engine-description.ts";
export { solrXml } from "./answers/response.ts";
export type { SearchIndexHandle } from "./answers/search.ts";
export { search } from "./answers/search.ts";
export {
  listQueryEngines,
  queryEngineDescription,
  requireEngine,
  runQuery,
  searchCaller,
} from "./answers/service.ts";
// What a document of the index is (the CN's echoIndexedObject diagnostic builds one without writing it).
export { extractorFor } from "./extract/index.ts";
export { indexNewObjects, indexSysmetaChange } from "./indexing/hooks.ts";
export { coalescedIndexing } from "./indexing/index-batches.ts";
// In: object changes, from the write core's subscribers, imports and rebuilds.
export type { IndexContext } from "./indexing/indexer.ts";
export { bytesToHold } from "./indexing/indexer.ts";
export type { IndexedDatabase, ObjectBytes, ObjectRecords } from "./indexing/object-source.ts";
export type { IndexCatchUp, ReindexProgress } from "./indexing/reindex.ts";
export { countObjectsToIndex, indexMissing, reindexObjects, startIndexCatchUp } from "./indexing/reindex.ts";
export { WritesUnderWay } from "./indexing/writes-under-way.ts";
export { SEARCH_SNAPSHOT_FILE } from "./memory-snapshot.ts";
// Out: answers to queries.
export { SolrParams } from "./query/params.ts";
export { parseSearchRequest } from "./query/parse-request.ts";
export type { AnswerLinks } from "./schema/data-url.ts";
export { withCopyFields } from "./schema/document.ts";
export { storedDoc } from "./schema/index-rows.ts";
export { RESOURCE_MAP_FORMATS } from "./schema/packages.ts";
export { sysmetaFields } from "./schema/sysmeta-fields.ts";
export type { EngineStatus, SearchIndex } from "./search-index.ts";
// The engine one node holds, opened on its database and closed with it.
export { openSearchIndex } from "./search-index.ts";
// Its tables' migrations, which the composition root merges with the node's by number.
export { SEARCH_MIGRATIONS } from "./store/migrations/index.ts";
export type { RebuildEnd } from "./store/rebuild-state.ts";
export { warmSearch } from "./warm.ts";
