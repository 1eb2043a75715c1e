/** Facet counts from the engine's memory: field values per document, facet queries as cached clauses. */
import type { ValueCounts } from "../facet-page.ts";
import type { FacetSource } from "../facets.ts";
import type { Condition } from "../query-sql.ts";
import { Bitset } from "./bitset.ts";
import type { Column } from "./columns.ts";
import { countedDocs } from "./doc-list.ts";
import { matching } from "./evaluate.ts";
import type { SearchMemory } from "./index.ts";

/**
 * When the matching documents have fewer than 1 in FEW_VALUES of a field's values, the page reads just those
 * (sorted into byte order) instead of walking every value: facet.mincount is at least 1, so values no matching
 * document has are never listed.
 */
const FEW_VALUES = 8;

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
      const columns: Column[] = [];
      for (const { field } of fields) columns.push(await memory.column(field));
      // Listed once for every field, after the columns are up to date (a document numbered meanwhile is among
      // the others): the matching documents, or the others when most match.
      const counted = countedDocs(matches, matchCount, memory.docs.size);
      for (const column of columns) {
        const { counts, met } = column.count(matches, counted);
        const few = met !== undefined && met.length * FEW_VALUES < column.values.length;
        out.set(column.field, {
          values: column.values,
          counts,
          nums: column.nums,
          order: few ? column.inValueOrder(met) : column.valueOrder(),
        });
      }
      return out;
    },
    async queryCount(query) {
      const set = await matching(memory, translate(query));
      return Bitset.intersection([matches, set]).count();
    },
  };
}
