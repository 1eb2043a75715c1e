/**
 * Entries harvested from other nodes' logs into `events`, each (source node, source entry) once: a row already
 * stored is skipped by the unique index on the pair ("on conflict do nothing"). Returns the rows that were new,
 * for the list positions and the change feed.
 * PostgreSQL: one statement per page, prepared once per connection, the page's rows sent as one JSON parameter
 * that json_to_recordset expands: the CN builds no statement text and no parameter per value, and the server
 * neither parses nor plans a statement with thousands of parameters per page (log aggregation stores millions of
 * entries; see docs/performance.md). SQLite: multi-row inserts through the query builder.
 */
import type { Kysely } from "kysely";
import { FixedSql, onPostgres } from "../engine/statement-texts.ts";
import type { Tables } from "../schema.ts";
import type { HarvestedRow } from "./event-rows.ts";

/** The columns of a harvested row, as the JSON objects carry them. */
const COLUMNS = [
  ["pid", "text"],
  ["ip", "text"],
  ["user_agent", "text"],
  ["subject", "text"],
  ["event", "text"],
  ["date_logged", "bigint"],
  ["node_id", "text"],
  ["source_node", "text"],
  ["source_entry", "text"],
] as const;

const names = COLUMNS.map(([name]) => name).join(", ");
const FROM_JSON = new FixedSql(
  `insert into events (${names}) select ${names}
   from json_to_recordset(?::json) as page(${COLUMNS.map(([name, type]) => `${name} ${type}`).join(", ")})
   on conflict (source_node, source_entry) do nothing
   returning source_node, source_entry`,
  { prepared: true },
);

/** Rows per statement: a page of any size stays a bounded statement (SQLite: under its parameter limit). */
const ROWS_PER_JSON = 5000;
const ROWS_PER_INSERT = 500;

interface Source {
  source_node: string;
  source_entry: string;
}

/** Inserts `rows` in `tx`; returns those that were not stored yet. */
export async function insertHarvested(
  tx: Kysely<Tables>,
  rows: readonly HarvestedRow[],
): Promise<HarvestedRow[]> {
  const postgres = onPostgres(tx);
  const size = postgres ? ROWS_PER_JSON : ROWS_PER_INSERT;
  const added: HarvestedRow[] = [];
  for (let i = 0; i < rows.length; i += size) {
    const batch = rows.slice(i, i + size);
    const stored = postgres
      ? (await FROM_JSON.run<Source>(tx, [JSON.stringify(batch)])).rows
      : await tx
          .insertInto("events")
          .values(batch)
          .onConflict((oc) => oc.columns(["source_node", "source_entry"]).doNothing())
          .returning(["source_node", "source_entry"])
          .execute();
    added.push(...newOnes(batch, stored as Source[]));
  }
  return added;
}

/** The rows of `batch` named by `stored` (usually all of them: a page is new unless it is read again). */
function newOnes(batch: HarvestedRow[], stored: readonly Source[]): HarvestedRow[] {
  if (stored.length === batch.length) return batch;
  const keyOf = (row: Source) => `${row.source_node}\u0000${row.source_entry}`;
  const inserted = new Set(stored.map(keyOf));
  return batch.filter((row) => inserted.delete(keyOf(row)));
}
