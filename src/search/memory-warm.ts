/**
 * Filling a new engine memory in the background (search-index.ts): the search page's query answered from it,
 * which reads what that page needs (the catalog filter's and the public's documents, the facet fields' values,
 * the page order). Other fields are read when a query first needs them.
 */

import { answerFrom, type SearchIndexHandle } from "./answers/search.ts";
import type { SearchMemory } from "./memory/index.ts";
import { searchPageRequest } from "./warm.ts";

export async function warmMemory(index: SearchIndexHandle, memory: SearchMemory): Promise<void> {
  await answerFrom(index, memory, searchPageRequest(), { subjects: new Set(["public"]) });
}
