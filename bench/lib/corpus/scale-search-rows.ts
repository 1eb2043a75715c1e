/** The COPY text of documents [from, to) of the search-scale load: search_docs lines and search_values lines. */

import { copyField, textArray } from "../../../src/db/engine/copy-text.ts";
import { indexRows } from "../../../src/search/schema/index-rows.ts";
import { valueCopyLine } from "../../../src/search/store/copy-values.ts";
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

/** The COPY text of a chunk, UTF-8 encoded where it is made (so a worker's bytes move to the writer as they are). */
export interface ChunkText {
  docs: Buffer;
  values: Buffer;
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
    for (const v of rows) values.push(valueCopyLine(v));
  }
  return { docs: Buffer.from(docs.join("")), values: Buffer.from(values.join("")) };
}
