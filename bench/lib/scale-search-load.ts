/**
 * A search index of millions of documents, loaded into PostgreSQL with COPY FROM STDIN: the rows the index
 * store would write (src/search/index-rows.ts) for documents drawn from the corpus's field distributions
 * (eml-fields.ts), `search_docs` and `search_values` streamed side by side, their secondary indexes and the
 * values' key dropped while the rows go in and built again after, then `vacuum analyze`.
 */
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { type IndexEntry, indexRows } from "../../src/search/index-rows.ts";

const DOCS_PER_CHUNK = 2000;
const DOC_COLUMNS = ["pid", "doc", "science", "format_type", "obsoleted", "archived", "is_public"];
const MORE_DOC_COLUMNS = ["date_uploaded", "format_id", "terms"];

/** A value as COPY's text format reads it. */
function field(value: string | number | null): string {
  if (value === null) return "\\N";
  return String(value)
    .replace(/\\/g, "\\\\")
    .replace(/\t/g, "\\t")
    .replace(/\n/g, "\\n")
    .replace(/\r/g, "\\r");
}

/** A text[] literal. */
function textArray(list: string[]): string {
  return `{${list.map((t) => `"${t.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`).join(",")}}`;
}

export async function copySearchIndex(
  url: string,
  count: number,
  entryOf: (n: number) => IndexEntry,
  onProgress: (docs: number) => void,
): Promise<{ rowsSeconds: number; indexSeconds: number }> {
  const docsClient = new pg.Client({ connectionString: url });
  const valuesClient = new pg.Client({ connectionString: url });
  await docsClient.connect();
  await valuesClient.connect();
  try {
    const indexes = await docsClient.query<{ indexname: string; indexdef: string }>(
      `select indexname, indexdef from pg_indexes where schemaname = current_schema()
         and tablename in ('search_docs', 'search_values')
         and indexname not in (select conname from pg_constraint where contype = 'p')`,
    );
    const keys = await docsClient.query<{ conname: string; def: string }>(
      `select conname, pg_get_constraintdef(oid) as def from pg_constraint
         where conrelid = 'search_values'::regclass and contype = 'p'`,
    );
    for (const index of indexes.rows) await docsClient.query(`drop index "${index.indexname}"`);
    for (const key of keys.rows)
      await docsClient.query(`alter table search_values drop constraint "${key.conname}"`);
    const started = performance.now();
    const docs = docsClient.query(
      copyFrom(`copy search_docs (${[...DOC_COLUMNS, ...MORE_DOC_COLUMNS].join(", ")}) from stdin`),
    );
    const values = valuesClient.query(copyFrom("copy search_values (pid, field, value, num) from stdin"));
    const done = [finished(docs), finished(values)];
    for (let from = 0; from < count; from += DOCS_PER_CHUNK) {
      let docText = "";
      let valueText = "";
      for (let n = from; n < Math.min(count, from + DOCS_PER_CHUNK); n++) {
        const { row, values: rows, terms } = indexRows(entryOf(n));
        docText += `${[row.pid, row.doc, row.science, row.format_type, row.obsoleted, row.archived, row.is_public, row.date_uploaded, row.format_id].map(field).join("\t")}\t${field(textArray(terms))}\n`;
        for (const v of rows)
          valueText += `${field(v.pid)}\t${field(v.field)}\t${field(v.value)}\t${field(v.num)}\n`;
      }
      await Promise.all([write(docs, docText), write(values, valueText)]);
      onProgress(Math.min(count, from + DOCS_PER_CHUNK));
    }
    docs.end();
    values.end();
    await Promise.all(done);
    const rowsSeconds = (performance.now() - started) / 1000;
    const indexed = performance.now();
    for (const key of keys.rows) {
      await docsClient.query(`alter table search_values add constraint "${key.conname}" ${key.def}`);
    }
    for (const index of indexes.rows) await docsClient.query(index.indexdef);
    await docsClient.query("vacuum (analyze) search_docs");
    await docsClient.query("vacuum (analyze) search_values");
    return { rowsSeconds, indexSeconds: (performance.now() - indexed) / 1000 };
  } finally {
    await docsClient.end();
    await valuesClient.end();
  }
}

function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  return stream.write(text) ? Promise.resolve() : new Promise((resolve) => stream.once("drain", resolve));
}

function finished(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.on("finish", resolve);
    stream.on("error", reject);
  });
}
