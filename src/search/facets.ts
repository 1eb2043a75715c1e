/**
 * Faceting: facet.field (value counts; facet.mincount, facet.limit, facet.offset, facet.sort count|index,
 * facet.prefix, each also per field as f.<field>.facet.*), facet.query (counts of further queries) and
 * facet.range (start, end, gap with date math). Values are counted over the documents the query matched;
 * text fields count tokens, as Solr's text fields do.
 */
import { type RawBuilder, sql } from "kysely";
import { InvalidRequest } from "../errors/exceptions.ts";
import { formatSolrDate, readQueryDate } from "./dates.ts";
import { fieldSpec, isNumeric } from "./fields.ts";
import type { SolrParams } from "./params.ts";
import { and, type Condition } from "./query-sql.ts";
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

export async function facetCounts(
  index: SearchIndexHandle,
  params: SolrParams,
  where: Condition,
  translate: (query: string) => Condition,
): Promise<FacetCounts> {
  const out: FacetCounts = {
    facet_queries: {},
    facet_fields: {},
    facet_ranges: {},
    facet_intervals: {},
    facet_heatmaps: {},
  };
  for (const query of params.all("facet.query")) {
    const r = await sql<{ n: number | string }>`select count(*) as n from search_docs d
      where ${and([where, translate(query)])}`.execute(index.db);
    out.facet_queries[query] = Number(r.rows[0]?.n ?? 0);
  }
  for (const field of unique(params.all("facet.field"))) {
    out.facet_fields[field] = await fieldCounts(index, params, where, field);
  }
  for (const field of unique(params.all("facet.range"))) {
    out.facet_ranges[field] = await rangeCounts(index, params, where, field);
  }
  return out;
}

const unique = (list: string[]) => [...new Set(list.map((s) => s.trim()).filter(Boolean))];

async function fieldCounts(
  index: SearchIndexHandle,
  params: SolrParams,
  where: Condition,
  field: string,
): Promise<(string | number)[]> {
  const spec = fieldSpec(field);
  if (!spec) throw new InvalidRequest(`undefined field ${field}`);
  const limit = params.int("facet.limit", 100, -1, Number.MAX_SAFE_INTEGER, field);
  const offset = params.int("facet.offset", 0, 0, Number.MAX_SAFE_INTEGER, field);
  const mincount = Math.max(1, params.int("facet.mincount", 1, 0, Number.MAX_SAFE_INTEGER, field));
  const sortParam = params.forField(field, "facet.sort")?.trim().toLowerCase();
  const byIndex = sortParam === "index" || sortParam === "lex" || (sortParam === undefined && limit <= 0);
  if (sortParam !== undefined && !["index", "lex", "count"].includes(sortParam)) {
    throw new InvalidRequest(`facet.sort must be count or index (not ${sortParam}).`);
  }
  const prefix = params.forField(field, "facet.prefix");
  const prefixCondition: RawBuilder<unknown> =
    prefix === undefined || prefix === ""
      ? sql`1 = 1`
      : sql`substr(v.value, 1, ${prefix.length}) = ${spec.type === "text" ? prefix.toLowerCase() : prefix}`;
  const valueOrder = isNumeric(spec.type) ? sql`min(v.num) asc, v.value asc` : sql`v.value asc`;
  const order = byIndex ? valueOrder : sql`count(*) desc, v.value asc`;
  const page = limit < 0 ? sql`` : sql`limit ${limit} offset ${offset}`;
  const tail = limit < 0 && offset > 0 ? sql`limit -1 offset ${offset}` : page;
  const paging = index.dialect === "postgres" && limit < 0 ? sql`offset ${offset}` : tail;
  const result = await sql<{ value: string; n: number | string }>`select v.value as value, count(*) as n
    from search_values v
    where v.field = ${field} and ${prefixCondition}
      and v.pid in (select d.pid from search_docs d where ${where})
    group by v.value having count(*) >= ${mincount}
    order by ${order} ${paging}`.execute(index.db);
  return result.rows.flatMap((r) => [r.value, Number(r.n)]);
}

async function rangeCounts(
  index: SearchIndexHandle,
  params: SolrParams,
  where: Condition,
  field: string,
): Promise<FacetRange> {
  const spec = fieldSpec(field);
  if (!spec || !isNumeric(spec.type))
    throw new InvalidRequest(`facet.range needs a numeric or date field (${field}).`);
  const isDate = spec.type === "date";
  const need = (name: string) => {
    const value = params.forField(field, name);
    if (value === undefined || value.trim() === "") {
      throw new InvalidRequest(`Missing required parameter: f.${field}.${name} or ${name}`);
    }
    return value.trim();
  };
  const startText = need("facet.range.start");
  const endText = need("facet.range.end");
  const gap = need("facet.range.gap");
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
  const rows = await sql<{ num: number }>`select v.num as num from search_values v
    where v.field = ${field} and v.num >= ${start} and v.num < ${end}
      and v.pid in (select d.pid from search_docs d where ${where})`.execute(index.db);
  const counts = new Array<number>(Math.max(0, bounds.length - 1)).fill(0);
  for (const { num } of rows.rows) {
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
