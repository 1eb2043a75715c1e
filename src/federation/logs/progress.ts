/** Per Member Node, how far log aggregation has read its event log (table `log_aggregation`). */
import { sql } from "kysely";
import type { NodeContext } from "../../services/context.ts";

export interface LogProgress {
  /** The newest dateLogged stored from that node. */
  harvestedTo: Date;
  /** Entries stored from that node so far. */
  entries: number;
}

export async function readLogProgress(ctx: NodeContext, nodeId: string): Promise<LogProgress | undefined> {
  const row = await ctx.db.kysely
    .selectFrom("log_aggregation")
    .selectAll()
    .where("node_id", "=", nodeId)
    .executeTakeFirst();
  return row && { harvestedTo: new Date(Number(row.harvested_to)), entries: Number(row.entries) };
}

/** Records a page: the newest date only moves forward, the count adds up. */
export async function saveLogProgress(
  ctx: NodeContext,
  nodeId: string,
  newest: Date,
  added: number,
): Promise<void> {
  const now = Date.now();
  await ctx.db.kysely
    .insertInto("log_aggregation")
    .values({ node_id: nodeId, harvested_to: newest.getTime(), entries: added, updated_at: now })
    .onConflict((oc) =>
      oc.column("node_id").doUpdateSet((eb) => ({
        harvested_to: sql<number>`case when excluded.harvested_to > log_aggregation.harvested_to
          then excluded.harvested_to else log_aggregation.harvested_to end`,
        entries: eb("log_aggregation.entries", "+", added),
        updated_at: now,
      })),
    )
    .execute();
}

/** Entries stored from that node dated in [from, to). */
export async function countStoredFrom(
  ctx: NodeContext,
  nodeId: string,
  from: Date,
  to: Date,
): Promise<number> {
  const row = await ctx.db.kysely
    .selectFrom("events")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("source_node", "=", nodeId)
    .where("date_logged", ">=", from.getTime())
    .where("date_logged", "<", to.getTime())
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
