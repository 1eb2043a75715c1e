/**
 * Faceting: facet.field (value counts; facet.mincount, facet.limit, facet.offset, facet.sort count|index,
 * facet.prefix, each also per field as f.<field>.facet.*), facet.query (counts of further queries) and
 * facet.range (start, end, gap with date math). Values are counted over the documents the query matched;
 * text fields count tokens, as Solr's text fields do.
 */
import { InvalidRequest } from "../../errors/exceptions.ts";
import type { Condition } from "../query/query-sql.ts";
import type { FacetFieldRequest, FacetRangeRequest, FacetRequest } from "../query/request.ts";
import { formatSolrDate, readQueryDate } from "../schema/dates.ts";
import { markOf } from "../schema/terms.ts";
import { pageOf, type ValueCounts, valueCountsOf } from "./facet-page.ts";
import type { SearchIndexHandle } from "./search.ts";

export interface FacetRange {
  counts: (string | number)[];
  gap: string | number;
  start: string | number;
  end: string | number;
}

export interface FacetCounts {
  facet_queries: Record<string, number>;
  facet_fields: Record<string, (string | number)[]>;
  facet_ranges: Record<string, FacetRange>;
  facet_intervals: Record<string, never>;
  facet_heatmaps: Record<string, never>;
}

const MAX_BUCKETS = 10_000;

/** Where counts come from: the database (sql-facet-source.ts) or the engine's memory (memory/facet-source.ts). */
export interface FacetSource {
  /**
   * The page each of these (non-text) fields asks for of its values' counts over the matching documents
   * (pageOf), by field; a field no matching document has a value of may be left out.
   */
  fieldPages(fields: readonly FacetFieldRequest[]): Promise<Map<string, (string | number)[]>>;
  /** How many matching documents also match `query` (facet.query). */
  queryCount(query: string): Promise<number>;
}

export async function facetCounts(
  index: SearchIndexHandle,
  facet: FacetRequest,
  where: Condition,
  source: FacetSource,
): Promise<FacetCounts> {
  const out: FacetCounts = {
    facet_queries: {},
    facet_fields: {},
    facet_ranges: {},
    facet_intervals: {},
    facet_heatmaps: {},
  };
  for (const { key, query } of facet.queries) out.facet_queries[key] = await source.queryCount(query);
  const pages = await source.fieldPages(facet.fields.filter((f) => f.spec.type !== "text"));
  for (const field of facet.fields) {
    out.facet_fields[field.field] =
      field.spec.type === "text"
        ? pageOf(field, await tokenCounts(index, where, field.field))
        : (pages.get(field.field) ?? []);
  }
  for (const range of facet.ranges) out.facet_ranges[range.field] = await rangeCounts(index, range, where);
  return out;
}

/** Token counts of a text field over the matching documents, from their terms (src/search/schema/terms.ts). */
async function tokenCounts(index: SearchIndexHandle, where: Condition, field: string): Promise<ValueCounts> {
  const mark = markOf(field);
  const counts = new Map<string, number>();
  const add = (term: string) => {
    if (term.length > mark.length && term.startsWith(mark)) {
      const token = term.slice(mark.length);
      counts.set(token, (counts.get(token) ?? 0) + 1);
    }
  };
  await index.db.search.forEachTerm(where, mark, add);
  return valueCountsOf([...counts].map(([value, n]) => ({ value, n, num: null })));
}

/** facet.range: the matching documents counted in buckets from start to end, gap wide (dates: date math). */
async function rangeCounts(
  index: SearchIndexHandle,
  range: FacetRangeRequest,
  where: Condition,
): Promise<FacetRange> {
  const { field, spec, start: startText, end: endText, gap } = range;
  const isDate = spec.type === "date";
  const read = (text: string) => {
    const value = isDate ? readQueryDate(text) : Number(text);
    if (value === undefined || !Number.isFinite(value))
      throw new InvalidRequest(`Invalid facet.range value: ${text}`);
    return value;
  };
  const start = read(startText);
  const end = read(endText);
  const next = (at: number) =>
    isDate
      ? read(`${formatSolrDate(at)}${gap.startsWith("+") || gap.startsWith("-") ? gap : `+${gap}`}`)
      : at + read(gap);
  const bounds: number[] = [start];
  while ((bounds[bounds.length - 1] as number) < end) {
    const at = next(bounds[bounds.length - 1] as number);
    if (at <= (bounds[bounds.length - 1] as number))
      throw new InvalidRequest(`facet.range.gap must be positive (${gap}).`);
    bounds.push(Math.min(at, end));
    if (bounds.length > MAX_BUCKETS) throw new InvalidRequest("facet.range asks for too many buckets.");
  }
  const rows = await index.db.search.numbersOf(where, field, start, end);
  const counts = new Array<number>(Math.max(0, bounds.length - 1)).fill(0);
  for (const { num } of rows) {
    let lo = 0;
    let hi = counts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((bounds[mid] as number) <= Number(num)) lo = mid;
      else hi = mid - 1;
    }
    counts[lo] = (counts[lo] ?? 0) + 1;
  }
  const label = (at: number) => (isDate ? formatSolrDate(at) : String(at));
  return {
    counts: counts.flatMap((n, i) => [label(bounds[i] as number), n]),
    gap: isDate ? gap : Number(gap),
    start: isDate ? formatSolrDate(start) : start,
    end: isDate ? formatSolrDate(end) : end,
  };
}
