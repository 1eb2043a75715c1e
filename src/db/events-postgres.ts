/**
 * Harvested log entries into PostgreSQL's `events`: one INSERT ... SELECT FROM unnest(arrays) per page, nine
 * array parameters instead of nine per row. Building and sending a 500-row multi-row INSERT through the query
 * builder was most of the cost of storing a page on the Coordinating Node.
 */
import { type Kysely, sql } from "kysely";
import type { Tables } from "./schema.ts";

export type HarvestedRow = Omit<Tables["events"], "id">;
/** What addHarvested needs back of each row it added. */
export type AddedRow = Omit<HarvestedRow, "source_node" | "source_entry">;

/** Inserts `rows`, skipping the (source_node, source_entry) pairs already stored; answers the rows added. */
export async function insertHarvestedRows(
  tx: Kysely<Tables>,
  rows: readonly HarvestedRow[],
): Promise<AddedRow[]> {
  const column = <K extends keyof HarvestedRow>(key: K) => rows.map((row) => row[key] ?? null);
  const result = await sql<AddedRow>`insert into events
      (pid, ip, user_agent, subject, event, date_logged, node_id, source_node, source_entry)
    select * from unnest(cast(${column("pid")} as text[]), cast(${column("ip")} as text[]),
      cast(${column("user_agent")} as text[]), cast(${column("subject")} as text[]),
      cast(${column("event")} as text[]), cast(${column("date_logged")} as bigint[]),
      cast(${column("node_id")} as text[]), cast(${column("source_node")} as text[]),
      cast(${column("source_entry")} as text[]))
    on conflict (source_node, source_entry) do nothing
    returning pid, ip, user_agent, subject, event, date_logged, node_id`.execute(tx);
  return result.rows;
}
