/**
 * An index entry as rows: the search_docs row (stored fields as JSON, the columns the common filters use), the
 * search_values rows of the non-text fields, and the text fields' terms (terms.ts). Written by the index store
 * (src/search/store/index-store.ts).
 */
import type { SearchDocsTable } from "../../db/schema.ts";
import { formatSolrDate } from "./dates.ts";
import { type FieldValue, type SearchDocument, withCopyFields } from "./document.ts";
import { type FieldSpec, fieldSpec } from "./fields.ts";
import { documentTerms } from "./terms.ts";
import { tokenize } from "./tokens.ts";

/** A stored document as the response writers see it: field -> value or values, dates as Solr strings. */
export type StoredDoc = Record<string, FieldValue | FieldValue[]>;

export interface IndexEntry {
  pid: string;
  sysmeta: SearchDocument;
  science: SearchDocument;
}

interface ValueRow {
  pid: string;
  field: string;
  value: string;
  num: number | null;
}

/** An entry as rows (plain data: it crosses from the worker threads of a rebuild as it is). */
export interface IndexRows {
  /** The search_docs row, less the terms' place (each dialect's writer gives it). */
  row: Omit<SearchDocsTable, "term_id" | "terms">;
  values: ValueRow[];
  terms: string[];
}

export function indexRows({ pid, sysmeta, science }: IndexEntry): IndexRows {
  const merged = new Map(science);
  for (const [name, values] of sysmeta) merged.set(name, values);
  const doc = withCopyFields(merged);
  const one = (name: string) => doc.get(name)?.[0];
  const uploaded = one("dateUploaded");
  const formatType = one("formatType");
  const formatId = one("formatId");
  const { values, tokens } = valueRows(pid, doc);
  return {
    row: {
      pid,
      doc: JSON.stringify(storedDoc(doc)),
      science: JSON.stringify([...science]),
      format_type: typeof formatType === "string" ? formatType : null,
      obsoleted: doc.has("obsoletedBy") ? 1 : 0,
      archived: one("archived") === true ? 1 : 0,
      is_public: one("isPublic") === true ? 1 : 0,
      date_uploaded: typeof uploaded === "number" ? uploaded : null,
      format_id: typeof formatId === "string" ? formatId : null,
    },
    values,
    terms: documentTerms(tokens),
  };
}

/** search_values rows of the non-text fields, and the distinct tokens of each text field. */
function valueRows(
  pid: string,
  doc: SearchDocument,
): { values: ValueRow[]; tokens: Map<string, Set<string>> } {
  const values: ValueRow[] = [];
  const tokens = new Map<string, Set<string>>();
  for (const [name, list] of doc) {
    const spec = fieldSpec(name);
    if (!spec || list.length === 0) continue;
    if (spec.type === "text") {
      const set = tokens.get(name) ?? new Set<string>();
      for (const value of list) for (const token of tokenize(String(value))) set.add(token);
      tokens.set(name, set);
      continue;
    }
    const seen = new Set<string>();
    for (const value of list) {
      const text = indexedText(spec, value);
      if (seen.has(text)) continue;
      seen.add(text);
      values.push({ pid, field: name, value: text, num: typeof value === "number" ? value : null });
    }
  }
  return { values, tokens };
}

/** The text form of a value in search_values (and in facets): dates as Solr writes them. */
export function indexedText(spec: FieldSpec, value: FieldValue): string {
  if (spec.type === "date" && typeof value === "number") return formatSolrDate(value);
  return String(value);
}

export function storedDoc(doc: SearchDocument): StoredDoc {
  const out: StoredDoc = {};
  for (const [name, values] of doc) {
    const spec = fieldSpec(name);
    if (!spec?.stored || values.length === 0) continue;
    const shown = values.map((v) => (spec.type === "date" && typeof v === "number" ? formatSolrDate(v) : v));
    out[name] = spec.multiValued ? shown : (shown[0] as FieldValue);
  }
  return out;
}
