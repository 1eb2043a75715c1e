/** Facet counts from the engine's memory: field values per document, facet queries as cached clauses. */
import { pageOf } from "../answers/facet-page.ts";
import type { FacetSource } from "../answers/facets.ts";
import type { Condition } from "../query/query-sql.ts";
import { Bitset } from "./bitset.ts";
import type { Column } from "./columns.ts";
import { countedDocs } from "./doc-list.ts";
import { matching } from "./evaluate.ts";
import type { SearchMemory } from "./index.ts";

export function memoryFacetSource(
  memory: SearchMemory,
  matches: Bitset,
  /** How many documents `matches` holds (numFound). */
  matchCount: number,
  translate: (query: string) => Condition,
): FacetSource {
  return {
    async fieldPages(fields) {
      const out = new Map<string, (string | number)[]>();
      const columns: Column[] = [];
      for (const { field } of fields) columns.push(await memory.column(field));
      // From here to the return, no turn of the event loop: the lists and counts below are scratch arrays
      // (scratch-ints.ts) another query would reuse. The documents are listed once for every field, after the
      // columns are up to date (a document numbered meanwhile is among the others): the matching documents, or
      // the others when most match.
      const counted = countedDocs(matches, matchCount, memory.docs.size);
      for (const [i, field] of fields.entries()) {
        const column = columns[i] as Column;
        const { counts, order } = column.count(matches, counted);
        const { values, nums } = column;
        const page = pageOf(
          field,
          order
            ? { values, nums, order, counts, aligned: true }
            : { values, nums, counts, order: column.valueOrder() },
        );
        out.set(field.field, page);
      }
      return out;
    },
    async queryCount(query) {
      const set = await matching(memory, translate(query));
      return Bitset.intersection([matches, set]).count();
    },
  };
}
