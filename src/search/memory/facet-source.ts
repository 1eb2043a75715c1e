/** Facet counts from the engine's memory: field values per document, facet queries as cached clauses. */
import type { ValueCounts } from "../facet-page.ts";
import type { FacetSource } from "../facets.ts";
import type { Condition } from "../query-sql.ts";
import { Bitset } from "./bitset.ts";
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
    async valueCounts(fields) {
      const out = new Map<string, ValueCounts>();
      for (const { field } of fields) {
        const column = await memory.column(field);
        const list: ValueCounts = {
          values: column.values,
          counts: column.count(matches, matchCount),
          nums: column.nums,
          order: column.valueOrder(),
        };
        out.set(field, list);
      }
      return out;
    },
    async queryCount(query) {
      const set = await matching(memory, translate(query));
      return Bitset.intersection([matches, set]).count();
    },
  };
}
