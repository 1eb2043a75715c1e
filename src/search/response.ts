/**
 * Writing a result as Solr does: wt=json (responseHeader with the echoed params, response with numFound, start
 * and docs, facet_counts with flat value/count arrays, stats, grouped) or wt=xml (Solr's <response> of typed
 * <lst>, <arr>, <str>, <long>, <date>, ... elements).
 */
import { fieldSpec } from "./fields.ts";
import type { StoredDoc } from "./index-rows.ts";
import type { SearchResponse } from "./search.ts";

export function solrJson(result: SearchResponse): Record<string, unknown> {
  const out: Record<string, unknown> = {
    responseHeader: { status: 0, QTime: result.qtime, params: result.params },
  };
  if (result.grouped) out.grouped = result.grouped;
  else
    out.response = { numFound: result.numFound, start: result.start, numFoundExact: true, docs: result.docs };
  if (result.facets) out.facet_counts = result.facets;
  if (result.stats) out.stats = result.stats;
  return out;
}

export function solrXml(result: SearchResponse): string {
  const parts: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n<response>'];
  parts.push(
    lst("responseHeader", [
      el("int", "status", "0"),
      el("int", "QTime", String(result.qtime)),
      lst(
        "params",
        Object.entries(result.params).map(([name, value]) =>
          Array.isArray(value)
            ? arr(
                name,
                value.map((v) => el("str", undefined, v)),
              )
            : el("str", name, value),
        ),
      ),
    ]),
  );
  if (result.grouped) parts.push(value("grouped", result.grouped));
  else {
    parts.push(
      `<result name="response" numFound="${result.numFound}" start="${result.start}" numFoundExact="true">`,
      ...result.docs.map(docXml),
      "</result>",
    );
  }
  if (result.facets) {
    const f = result.facets;
    parts.push(
      lst("facet_counts", [
        lst(
          "facet_queries",
          Object.entries(f.facet_queries).map(([q, n]) => el("int", q, String(n))),
        ),
        lst(
          "facet_fields",
          Object.entries(f.facet_fields).map(([name, flat]) =>
            lst(
              name,
              pairs(flat).map(([v, n]) => el("int", v, n)),
            ),
          ),
        ),
        lst(
          "facet_ranges",
          Object.entries(f.facet_ranges).map(([name, range]) =>
            lst(name, [
              lst(
                "counts",
                pairs(range.counts).map(([v, n]) => el("int", v, n)),
              ),
              value("gap", range.gap),
              value("start", range.start),
              value("end", range.end),
            ]),
          ),
        ),
        lst("facet_intervals", []),
        lst("facet_heatmaps", []),
      ]),
    );
  }
  if (result.stats) parts.push(value("stats", result.stats));
  parts.push("</response>\n");
  return parts.join("");
}

function docXml(doc: StoredDoc): string {
  const fields = Object.entries(doc).map(([name, v]) => {
    const type = xmlType(name, Array.isArray(v) ? v[0] : v);
    return Array.isArray(v)
      ? arr(
          name,
          v.map((x) => el(type, undefined, String(x))),
        )
      : el(type, name, String(v));
  });
  return `<doc>${fields.join("")}</doc>`;
}

function xmlType(field: string, sample: unknown): string {
  const spec = fieldSpec(field);
  switch (spec?.type) {
    case "date":
      return "date";
    case "long":
      return "long";
    case "int":
      return "int";
    case "float":
      return "float";
    case "boolean":
      return "bool";
    default:
      return typeof sample === "number" ? "double" : typeof sample === "boolean" ? "bool" : "str";
  }
}

/** Any JSON-like value as Solr's generic XML (lst for objects, arr for arrays). */
function value(name: string | undefined, v: unknown): string {
  if (v === null || v === undefined) return `<null${nameAttr(name)}/>`;
  if (Array.isArray(v))
    return arr(
      name,
      v.map((x) => value(undefined, x)),
    );
  if (typeof v === "object")
    return lst(
      name,
      Object.entries(v).map(([k, x]) => value(k, x)),
    );
  if (typeof v === "number") return el(Number.isInteger(v) ? "long" : "double", name, String(v));
  if (typeof v === "boolean") return el("bool", name, String(v));
  return el("str", name, String(v));
}

function pairs(flat: (string | number)[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([String(flat[i]), String(flat[i + 1])]);
  return out;
}

const nameAttr = (name: string | undefined) => (name === undefined ? "" : ` name="${escapeXml(name)}"`);
const el = (tag: string, name: string | undefined, text: string) =>
  `<${tag}${nameAttr(name)}>${escapeXml(text)}</${tag}>`;
const lst = (name: string | undefined, items: string[]) => `<lst${nameAttr(name)}>${items.join("")}</lst>`;
const arr = (name: string | undefined, items: string[]) => `<arr${nameAttr(name)}>${items.join("")}</arr>`;

/** XML text escaping; characters XML 1.0 forbids are dropped. */
function escapeXml(text: string): string {
  return text
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}
