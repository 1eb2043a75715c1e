/** One SearchIndex per test database, as a node keeps one over its own (memory and caches shared by its calls). */
import type { Database } from "../../../src/db/types.ts";
import { openSearchIndex, type SearchIndex } from "../../../src/search/search-index.ts";

const indexes = new WeakMap<Database, SearchIndex>();

export function searchIndexOf(db: Database): SearchIndex {
  let index = indexes.get(db);
  if (!index) {
    index = openSearchIndex(db);
    indexes.set(db, index);
  }
  return index;
}

/** A search page as MetacatUI asks for it, small: metadata not obsoleted, newest first, two facet fields. */
export const SMALL_SEARCH_PAGE = {
  q: "formatType:METADATA AND -obsoletedBy:*",
  rows: "10",
  sort: "dateUploaded desc",
  facet: "true",
  "facet.field": ["keywords", "site"],
  "facet.limit": "-1",
};
