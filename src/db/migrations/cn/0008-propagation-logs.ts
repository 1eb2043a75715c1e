/**
 * 0008-propagation-logs: log aggregation on the Coordinating Node. An event harvested from a Member Node's log
 * keeps that node's identifier and its own entry id in `events.source_node` / `events.source_entry`; the unique
 * index on the pair stores each harvested event once, however often it is read again. Local events leave both
 * null (several nulls never collide in a unique index, in either dialect). `log_aggregation` keeps, per Member
 * Node, the dateLogged up to which its log has been read.
 */
import type { Migration } from "../migration.ts";

export const propagationLogsMigration: Migration = {
  name: "0008-propagation-logs",
  async up(db, dialect) {
    const big = dialect === "postgres" ? "bigint" : "integer";
    await db.schema.alterTable("events").addColumn("source_node", "text").execute();
    await db.schema.alterTable("events").addColumn("source_entry", "text").execute();
    await db.schema
      .createIndex("events_source")
      .on("events")
      .columns(["source_node", "source_entry"])
      .unique()
      .execute();
    await db.schema
      .createTable("log_aggregation")
      .addColumn("node_id", "text", (c) => c.primaryKey())
      .addColumn("harvested_to", big, (c) => c.notNull())
      .addColumn("entries", big, (c) => c.notNull())
      .addColumn("updated_at", big, (c) => c.notNull())
      .execute();
  },
};
