/**
 * 0007-replication: what a Coordinating Node remembers of each Member Node as a replication target, so that "a
 * node that keeps failing" is asked last: its failures since the last completed replica, and totals.
 */
import type { Migration } from "../migration.ts";

export const replicationMigration: Migration = {
  name: "0007-replication",
  async up(db, dialect) {
    const big = dialect === "postgres" ? "bigint" : "integer";
    await db.schema
      .createTable("replication_nodes")
      .addColumn("node_id", "text", (c) => c.primaryKey())
      .addColumn("consecutive_failures", "integer", (c) => c.notNull())
      .addColumn("failures", "integer", (c) => c.notNull())
      .addColumn("completions", "integer", (c) => c.notNull())
      .addColumn("last_failure_at", big)
      .addColumn("last_completion_at", big)
      .addColumn("last_failure", "text")
      .execute();
  },
};
