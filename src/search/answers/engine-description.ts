/**
 * MNQuery.getQueryEngineDescription for `solr`: "description and supported fields" as a QueryEngineDescription
 * (types v1.1): every schema field with its Solr type, and whether it is searchable, returnable and sortable.
 */
import { document, el, els, NS_V1_1 } from "../../types/xml.ts";
import { INDEXED_FORMATS } from "../extract/index.ts";
import { FIELDS, type FieldType } from "../schema/fields.ts";

export const SOLR_ENGINE = "solr";
/** The Solr release whose query syntax and response format the engine follows. */
export const SOLR_VERSION = "8.11.2";
export const QUERY_ENGINES: readonly string[] = [SOLR_ENGINE];

const SOLR_TYPES: Record<FieldType, string> = {
  string: "string",
  text: "text_general",
  int: "int",
  long: "long",
  float: "float",
  date: "date",
  boolean: "boolean",
};

export function serializeQueryEngineDescription(): string {
  const fields = [...FIELDS.values()].map(
    (f) =>
      `<queryField>${el("name", f.name)}${el("type", SOLR_TYPES[f.type])}${el("searchable", "true")}` +
      `${el("returnable", String(f.stored))}${el("sortable", String(!f.multiValued && f.type !== "text"))}` +
      `${el("multivalued", String(f.multiValued))}</queryField>`,
  );
  const info = [
    "Solr query syntax (q, fq, fl, rows, start, sort, wt=json|xml, facet.*, stats, group) over the d1node search index.",
    "Results are limited to what the caller may read; archived objects are hidden unless archived=archived:* is given.",
    `Science metadata is indexed for these formats: ${INDEXED_FORMATS.join(", ")}.`,
  ];
  return document(
    NS_V1_1,
    "queryEngineDescription",
    "",
    el("queryEngineVersion", SOLR_VERSION) +
      el("querySchemaVersion", "1.0") +
      el("name", SOLR_ENGINE) +
      els("additionalInfo", info) +
      fields.join(""),
  );
}
