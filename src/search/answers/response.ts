/**
 * Writing a result as Solr does: wt=json (responseHeader with the echoed params, response with numFound, start
 * and docs, facet_counts with flat value/count arrays, stats, grouped) or wt=xml (Solr's <response> of typed
 * <lst>, <arr>, <str>, <long>, <date>, ... elements).
 */
import { fieldSpec } from "../schema/fields.ts";
import type { StoredDoc } from "../schema/index-rows.ts";
import { type JsonBytes, jsonBytes } from "./json-bytes.ts";
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

/**
 * `solrJson(result)` as the UTF-8 bytes of its JSON text, the facet fields' lists written straight into bytes
 * (json-bytes.ts) and the rest by JSON.stringify: the same bytes, without a string of the lists' megabytes.
 * `take` gets them while they are valid (by default, a copy is returned).
 */
export function solrJsonBytes(result: SearchResponse, take?: (written: Buffer) => Buffer): Buffer {
  return jsonBytes(
    (out) =>
      objectOf(out, solrJson(result), (key, value) => {
        if (key !== "facet_counts") return false;
        objectOf(out, value as Record<string, unknown>, (name, lists) => {
          if (name !== "facet_fields") return false;
          objectOf(out, lists as Record<string, unknown>, (_field, flat) => {
            out.flatList(flat as (string | number)[]);
            return true;
          });
          return true;
        });
        return true;
      }),
    take,
  );
}

/** An object's members in order; `special` writes a member's value itself (true) or leaves it to stringify. */
function objectOf(
  out: JsonBytes,
  object: Record<string, unknown>,
  special: (key: string, value: unknown) => boolean,
): void {
  let first = true;
  out.raw("{");
  for (const [key, value] of Object.entries(object)) {
    // Members JSON.stringify leaves out.
    if (value === undefined || typeof value === "function" || typeof value === "symbol") continue;
    out.raw(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
    first = false;
    if (!special(key, value)) out.raw(JSON.stringify(value));
  }
  out.raw("}");
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
