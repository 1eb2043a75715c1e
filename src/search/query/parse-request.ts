/**
 * Solr's parameters -> one SearchRequest (request.ts), checked once where a request comes in (the query routes,
 * CNRead.search, warming). A pure function: what Solr refuses is an InvalidRequest naming the parameter, raised
 * here, before anything is read. Settings of a part the request does not ask for (facet.* without facet=true,
 * group.* without group=true) are not looked at, as Solr does not.
 */
import { InvalidRequest } from "../../errors/exceptions.ts";
import { type FieldSpec, fieldSpec, isNumeric } from "../schema/fields.ts";
import type { SolrParams } from "./params.ts";
import type {
  AnswerFormat,
  FacetFieldRequest,
  FacetQueryRequest,
  FacetRangeRequest,
  FacetRequest,
  GroupRequest,
  KnownField,
  SearchRequest,
} from "./request.ts";
import { fieldList } from "./select-fields.ts";
import { sortKeys } from "./sort.ts";

/** Largest page (rows) one request may ask for. */
export const MAX_ROWS = 50_000;

/**
 * Clauses without an operator are joined by AND, as DataONE's indexes answer them: the Coordinating Nodes' search
 * schema and Metacat's (the Member Nodes') both say `<solrQueryParser defaultOperator="AND"/>`. So d1_cli's
 * `id:X dateModified:[* TO *]` finds X alone. A request's q.op overrides it.
 */
export const DEFAULT_OPERATOR = "AND";

export function parseSearchRequest(params: SolrParams): SearchRequest {
  const wt = answerFormat(params);
  const defaultOperator = operator(params);
  const start = params.int("start", 0, 0, Number.MAX_SAFE_INTEGER);
  const rows = params.int("rows", 10, 0, MAX_ROWS);
  const sort = sortKeys(params.get("sort"));
  const group = params.bool("group") ? groupRequest(params) : undefined;
  const facet = params.bool("facet") ? facetRequest(params) : undefined;
  const stats = params.bool("stats") ? statsFields(params) : undefined;
  return {
    raw: params.entries.map(([name, value]) => [name, value] as const),
    echo: params.echo(),
    q: params.get("q") ?? "*:*",
    fq: params.all("fq"),
    archived: params.all("archived"),
    defaultField: params.get("df") ?? "text",
    defaultOperator,
    fields: fieldList(params.get("fl")),
    sort,
    start,
    rows,
    wt,
    facet,
    stats,
    group,
  };
}

function answerFormat(params: SolrParams): AnswerFormat {
  const wt = (params.get("wt") ?? "xml").trim().toLowerCase();
  if (wt !== "json" && wt !== "xml")
    throw new InvalidRequest(`wt=${wt} is not supported; use wt=json or wt=xml.`);
  return wt;
}

function operator(params: SolrParams): "AND" | "OR" {
  const op = params.get("q.op")?.toUpperCase();
  if (op !== undefined && op !== "AND" && op !== "OR")
    throw new InvalidRequest(`q.op must be AND or OR (not ${op}).`);
  return op ?? DEFAULT_OPERATOR;
}

/** Names of a repeated parameter, trimmed, each once, empty ones left out. */
const unique = (list: string[]) => [...new Set(list.map((s) => s.trim()).filter(Boolean))];

function knownField(field: string): FieldSpec {
  const spec = fieldSpec(field);
  if (!spec) throw new InvalidRequest(`undefined field ${field}`);
  return spec;
}

/** group=true&group.field=F: rows and start page the groups, group.limit documents per group. */
function groupRequest(params: SolrParams): GroupRequest {
  const field = params.get("group.field")?.trim();
  if (!field) throw new InvalidRequest("group=true needs group.field.");
  knownField(field);
  return { field, limit: params.int("group.limit", 1, 0, 1000), ngroups: params.bool("group.ngroups") };
}

/**
 * A facet.query with Solr's local parameters in front: `{!key=NAME}QUERY` names its count NAME (MetacatUI's
 * profile asks for `{!key=1950-1959}(beginDate:[...])`). Other local parameters (tag exclusion) are refused.
 */
function facetQuery(raw: string): FacetQueryRequest {
  const local = /^\s*\{!([^}]*)\}/.exec(raw);
  if (!local) return { key: raw, query: raw };
  const query = raw.slice(local[0].length);
  let key = query;
  const param = /\s*([A-Za-z.]+)=(?:'([^']*)'|"([^"]*)"|([^\s'"]+))/y;
  const text = local[1] ?? "";
  let at = 0;
  while (text.slice(at).trim() !== "") {
    param.lastIndex = at;
    const match = param.exec(text);
    if (!match) throw new InvalidRequest(`The facet.query local parameters "{!${text}}" cannot be read.`);
    if (match[1] !== "key") {
      throw new InvalidRequest(`The facet.query local parameter "${match[1]}" is not supported (only key).`);
    }
    key = match[2] ?? match[3] ?? match[4] ?? "";
    at = param.lastIndex;
  }
  return { key, query };
}

function facetRequest(params: SolrParams): FacetRequest {
  const names = unique(params.all("facet.field"));
  const specs = names.map(knownField);
  return {
    queries: params.all("facet.query").map(facetQuery),
    fields: names.map((field, i) => facetField(params, field, specs[i] as FieldSpec)),
    ranges: unique(params.all("facet.range")).map((field) => facetRange(params, field)),
  };
}

/** One facet field's settings: `f.<field>.facet.*` first, then `facet.*`. */
function facetField(params: SolrParams, field: string, spec: FieldSpec): FacetFieldRequest {
  const name = spec.name;
  const limit = params.int("facet.limit", 100, -1, Number.MAX_SAFE_INTEGER, name);
  const offset = params.int("facet.offset", 0, 0, Number.MAX_SAFE_INTEGER, name);
  const mincount = Math.max(1, params.int("facet.mincount", 1, 0, Number.MAX_SAFE_INTEGER, name));
  const sortParam = params.forField(name, "facet.sort")?.trim().toLowerCase();
  if (sortParam !== undefined && !["index", "lex", "count"].includes(sortParam)) {
    throw new InvalidRequest(`facet.sort must be count or index (not ${sortParam}).`);
  }
  // Solr's default: by count, but by index when every value is listed (facet.limit <= 0).
  const byIndex = sortParam === "index" || sortParam === "lex" || (sortParam === undefined && limit <= 0);
  const rawPrefix = params.forField(name, "facet.prefix") ?? "";
  const prefix = spec.type === "text" ? rawPrefix.toLowerCase() : rawPrefix;
  return { field, spec, limit, offset, mincount, sort: byIndex ? "index" : "count", prefix };
}

function facetRange(params: SolrParams, field: string): FacetRangeRequest {
  const spec = fieldSpec(field);
  if (!spec || !isNumeric(spec.type))
    throw new InvalidRequest(`facet.range needs a numeric or date field (${field}).`);
  const need = (name: string) => {
    const value = params.forField(field, name);
    if (value === undefined || value.trim() === "") {
      throw new InvalidRequest(`Missing required parameter: f.${field}.${name} or ${name}`);
    }
    return value.trim();
  };
  return {
    field,
    spec,
    start: need("facet.range.start"),
    end: need("facet.range.end"),
    gap: need("facet.range.gap"),
  };
}

function statsFields(params: SolrParams): KnownField[] {
  return [...new Set(params.all("stats.field").map((f) => f.trim()))].map((field) => ({
    field,
    spec: knownField(field),
  }));
}
