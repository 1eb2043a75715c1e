/** Per Member Node, how far log aggregation has read its event log (table `log_aggregation`). */
import { type Kysely, sql } from "kysely";
import type { Tables } from "../schema.ts";

export interface LogProgress {
  /** The newest dateLogged stored from that node. */
  harvestedTo: Date;
  /** Entries stored from that node so far. */
  entries: number;
}

export interface LogProgressStore {
  read(nodeId: string): Promise<LogProgress | undefined>;
  /**
   * Records a page: the newest date only moves forward, the count adds up. `within`: the transaction that stored
   * the page (its own statement otherwise).
   */
  save(nodeId: string, newest: Date, added: number, within?: Kysely<Tables>): Promise<void>;
  /** Entries stored from that node dated in [from, to). */
  countStored(nodeId: string, from: Date, to: Date): Promise<number>;
}

export function logProgressRepository(db: Kysely<Tables>): LogProgressStore {
  return {
    async read(nodeId) {
      const row = await db
        .selectFrom("log_aggregation")
        .selectAll()
        .where("node_id", "=", nodeId)
        .executeTakeFirst();
      return row && { harvestedTo: new Date(Number(row.harvested_to)), entries: Number(row.entries) };
    },

    async save(nodeId, newest, added, within = db) {
      const now = Date.now();
      await within
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
    },

    async countStored(nodeId, from, to) {
      const row = await db
        .selectFrom("events")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("source_node", "=", nodeId)
        .where("date_logged", ">=", from.getTime())
        .where("date_logged", "<", to.getTime())
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
