/**
 * Facet counts from the database (the engine's memory not in use: being read, over its budget, not trusted).
 * The work follows the smaller side, as the memory's columns count the non-matching documents when most match:
 * a query matching at most half the documents counts their values document by document; one matching more
 * counts the others' values and subtracts them from every value's count over all documents (one ordered read
 * of the fields' key, no join). The search page's catalog filter matches ~90 % of the documents.
 */

import { and, type Condition, unmatched } from "../query/query-sql.ts";
import type { FacetFieldRequest } from "../query/request.ts";
import { isNumeric } from "../schema/fields.ts";
import type { ValueCountRow } from "../store/facet-queries.ts";
import { pageOf, valueCountsOf } from "./facet-page.ts";
import type { FacetSource } from "./facets.ts";
import type { SearchIndexHandle } from "./search.ts";

/** Counts from the database, over the `matchCount` documents matching `where`. */
export function sqlFacetSource(
  index: SearchIndexHandle,
  where: Condition,
  matchCount: number,
  translate: (query: string) => Condition,
): FacetSource {
  return {
    fieldPages: (fields) => fieldPages(index, where, matchCount, fields),
    async queryCount(query) {
      return index.db.search.countMatching(and([where, translate(query)]));
    },
  };
}

/** The page of counts each (non-text) field asks for, of its values over the matching documents. */
async function fieldPages(
  index: SearchIndexHandle,
  where: Condition,
  matchCount: number,
  fields: readonly FacetFieldRequest[],
): Promise<Map<string, (string | number)[]>> {
  const out = new Map<string, (string | number)[]>();
  if (fields.length === 0) return out;
  // Numbers are read only for numeric fields: the others are counted from an index alone.
  const numeric = fields.filter((f) => isNumeric(f.spec.type)).map((f) => f.field);
  const other = fields.filter((f) => !isNumeric(f.spec.type)).map((f) => f.field);
  const search = index.db.search;
  const most = matchCount > 0 && 2 * matchCount > (await search.documentCount());
  const rows = most
    ? lessThe(
        await search.valueTotalRows(numeric, other),
        await search.valueCountRows(unmatched(where), numeric, other),
      )
    : await search.valueCountRows(where, numeric, other);
  const lists = new Map<string, { value: string; n: number; num: number | null }[]>();
  for (const row of rows) {
    const n = Number(row.n);
    if (n === 0) continue;
    const list = lists.get(row.field) ?? [];
    list.push({ value: row.value, n, num: row.num === null ? null : Number(row.num) });
    lists.set(row.field, list);
  }
  for (const field of fields) {
    const list = lists.get(field.field);
    if (list) out.set(field.field, pageOf(field, valueCountsOf(list)));
  }
  return out;
}

/** `totals` with the counts of `others` taken off (same field and value). */
function lessThe(totals: ValueCountRow[], others: ValueCountRow[]): ValueCountRow[] {
  const taken = new Map<string, Map<string, number>>();
  for (const row of others) {
    const byValue = taken.get(row.field) ?? new Map<string, number>();
    byValue.set(row.value, Number(row.n));
    taken.set(row.field, byValue);
  }
  for (const row of totals) {
    const off = taken.get(row.field)?.get(row.value);
    if (off !== undefined) row.n = Number(row.n) - off;
  }
  return totals;
}
