/**
 * Where a database's bytes are, table by table (each table with its indexes; SQLite's FTS5 shadow tables under
 * their virtual table's name): SQLite from the dbstat table, PostgreSQL from pg_total_relation_size (TOAST and
 * indexes included). For the benchmarks' notes on the disk a document takes. dbstat reads every page of the
 * file: about ten minutes for 54 GB on a disk reading 50 MB/s.
 */
import { sql } from "kysely";
import type { Database } from "../../../src/db/types.ts";

export interface TableSize {
  table: string;
  bytes: number;
}

/** The tables of the current schema, largest first. */
export async function tableSizes(db: Pick<Database, "kysely" | "dialect">): Promise<TableSize[]> {
  const rows =
    db.dialect === "postgres"
      ? await sql<TableSize>`select c.relname as "table", pg_total_relation_size(c.oid)::float8 as bytes
          from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where c.relkind in ('r', 'p') and n.nspname = current_schema()`.execute(db.kysely)
      : await sql<TableSize>`select coalesce(m.tbl_name, s.name) as "table", sum(s.pgsize) as bytes
          from dbstat s left join sqlite_master m on m.name = s.name
          where s.aggregate = 1 group by 1`.execute(db.kysely);
  const byTable = new Map<string, number>();
  for (const row of rows.rows) {
    const table = ftsOwner(row.table);
    byTable.set(table, (byTable.get(table) ?? 0) + Number(row.bytes));
  }
  return [...byTable].map(([table, bytes]) => ({ table, bytes })).sort((a, b) => b.bytes - a.bytes);
}

/** "12.3 KB a document: search_values 6.1, search_docs 4.0, ..." (the `top` largest, then the rest together). */
export function perDocument(sizes: TableSize[], documents: number, top = 5): string {
  const kb = (bytes: number) => (bytes / 1024 / documents).toFixed(1);
  const total = sizes.reduce((sum, size) => sum + size.bytes, 0);
  const shown = sizes.slice(0, top).map((size) => `${size.table} ${kb(size.bytes)}`);
  const rest = sizes.slice(top).reduce((sum, size) => sum + size.bytes, 0);
  if (rest > 0) shown.push(`the rest ${kb(rest)}`);
  return `${kb(total)} KB a document (${(total / 1e9).toFixed(1)} GB): ${shown.join(", ")}`;
}

/** An FTS5 shadow table's virtual table (search_terms_data -> search_terms); other names as they are. */
function ftsOwner(table: string): string {
  return table.replace(/_(data|idx|content|docsize|config)$/, "");
}
