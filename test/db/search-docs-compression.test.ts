/**
 * Migration 0019-search-docs-lz4: on PostgreSQL (built with lz4, as Debian's is) a document's stored fields,
 * science fields and terms are compressed with lz4, and read back whole.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { sql } from "kysely";
import { writeDocuments } from "../../src/db/search/index-store.ts";
import { DocumentBuilder } from "../../src/search/document.ts";
import { forEachDialect } from "../helpers/databases.ts";

forEachDialect((name, open) => {
  if (name !== "postgres") return;

  it("compresses search_docs' large columns with lz4", async () => {
    const db = await open();
    const abstract = Array.from({ length: 800 }, (_, i) => `word${i % 97} term${i % 13}`).join(" ");
    await writeDocuments(db, [
      {
        pid: "lz4-1",
        sysmeta: new DocumentBuilder().add("id", "lz4-1").add("formatType", "METADATA").fields,
        science: new DocumentBuilder().add("abstract", abstract).add("title", "Compressed").fields,
      },
    ]);
    const columns = await sql<{
      name: string;
      method: string;
    }>`select attname as name, attcompression as method
      from pg_attribute where attrelid = 'search_docs'::regclass and attname in ('doc', 'science', 'terms')
      order by attname`.execute(db.kysely);
    assert.deepEqual(
      columns.rows.map((row) => `${row.name}:${row.method}`),
      ["doc:l", "science:l", "terms:l"],
    );
    const stored = await sql<{
      doc: string | null;
      science: string | null;
      abstract: string;
    }>`select pg_column_compression(doc) as doc, pg_column_compression(science) as science,
      doc::json ->> 'abstract' as abstract from search_docs where pid = 'lz4-1'`.execute(db.kysely);
    assert.deepEqual(stored.rows[0], { doc: "lz4", science: "lz4", abstract });
  });
});
