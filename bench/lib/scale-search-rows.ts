/** The COPY text of documents [from, to) of the search-scale load: search_docs lines and search_values lines. */
import { indexRows } from "../../src/search/index-rows.ts";
import { copyField, textArray } from "./copy-text.ts";
import { scaleEntryOf } from "./scale-search-entry.ts";

export const DOCS_COPY_COLUMNS = [
  "pid",
  "doc",
  "science",
  "format_type",
  "obsoleted",
  "archived",
  "is_public",
  "date_uploaded",
  "format_id",
  "terms",
];
export const VALUES_COPY_COLUMNS = ["pid", "field", "value", "num"];

export interface ChunkText {
  docs: string;
  values: string;
}

export function chunkText(from: number, to: number): ChunkText {
  const docs: string[] = [];
  const values: string[] = [];
  for (let n = from; n < to; n++) {
    const { row, values: rows, terms } = indexRows(scaleEntryOf(n));
    const columns = [
      row.pid,
      row.doc,
      row.science,
      row.format_type,
      row.obsoleted,
      row.archived,
      row.is_public,
    ];
    docs.push(
      `${[...columns, row.date_uploaded, row.format_id, textArray(terms)].map(copyField).join("\t")}\n`,
    );
    for (const v of rows)
      values.push(`${copyField(v.pid)}\t${copyField(v.field)}\t${copyField(v.value)}\t${copyField(v.num)}\n`);
  }
  return { docs: docs.join(""), values: values.join("") };
}
