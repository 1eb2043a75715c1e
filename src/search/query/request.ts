/**
 * One search request, parsed and checked once at the edge (parse-request.ts) from Solr's parameters: everything
 * below the routes (the engine, facets, stats, grouping, the answer's format) reads this, never the parameters.
 */
import type { FieldSpec } from "../schema/fields.ts";
import type { FieldPick } from "./select-fields.ts";
import type { SortKey } from "./sort.ts";

export type AnswerFormat = "json" | "xml";

export interface SearchRequest {
  /** Every parameter as sent, in order: the caches' key. */
  readonly raw: readonly (readonly [string, string])[];
  /** Solr's echo in responseHeader.params: one string, or an array for a repeated name. */
  readonly echo: Readonly<Record<string, string | string[]>>;
  /** The main query (`*:*` when absent). */
  readonly q: string;
  /** Every fq, in order. */
  readonly fq: readonly string[];
  /** `archived` queries (DataONE's `archived=archived:*`); none: archived documents are left out. */
  readonly archived: readonly string[];
  /** df: the field of terms without one. */
  readonly defaultField: string;
  /** q.op: how clauses without an operator are joined. */
  readonly defaultOperator: "AND" | "OR";
  /** fl: the fields each document shows (undefined: every stored field). */
  readonly fields: readonly FieldPick[] | undefined;
  readonly sort: readonly SortKey[];
  readonly start: number;
  readonly rows: number;
  /** wt: the answer's format (xml by default, as Solr). */
  readonly wt: AnswerFormat;
  /** facet=true. */
  readonly facet: FacetRequest | undefined;
  /** stats=true: the stats.field fields, each once. */
  readonly stats: readonly KnownField[] | undefined;
  /** group=true. */
  readonly group: GroupRequest | undefined;
}

/** A field of the schema, as the request names it. */
export interface KnownField {
  readonly field: string;
  readonly spec: FieldSpec;
}

export interface FacetQueryRequest {
  readonly key: string;
  readonly query: string;
}

export interface FacetRequest {
  /** facet.query, each as its query and the name its count is given under (`{!key=NAME}`, else the query). */
  readonly queries: readonly FacetQueryRequest[];
  /** facet.field, each once, with its f.<field>.facet.* settings resolved. */
  readonly fields: readonly FacetFieldRequest[];
  /** facet.range, each once. */
  readonly ranges: readonly FacetRangeRequest[];
}

/** One facet.field (`field`: as asked for, the key of its counts). */
export interface FacetFieldRequest extends KnownField {
  /** facet.limit: most values listed, negative for all. */
  readonly limit: number;
  readonly offset: number;
  /** facet.mincount, at least 1 (values no matching document has are never listed). */
  readonly mincount: number;
  /** facet.sort: by count (most first), or by index (byte order, number order for numeric fields). */
  readonly sort: "count" | "index";
  /** facet.prefix, lower-cased for text fields (whose tokens are). */
  readonly prefix: string;
}

/** One facet.range (a numeric or date field). */
export interface FacetRangeRequest extends KnownField {
  /** facet.range.start, .end and .gap as sent (numbers, dates, date math): read when counting. */
  readonly start: string;
  readonly end: string;
  readonly gap: string;
}

export interface GroupRequest {
  /** group.field */
  readonly field: string;
  /** group.limit: documents shown per group. */
  readonly limit: number;
  /** group.ngroups=true: count the groups. */
  readonly ngroups: boolean;
}
