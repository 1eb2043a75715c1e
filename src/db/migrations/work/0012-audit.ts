/**
 * 0012-audit: the fixity audits of the stored bytes (`d1node audit`, the scheduled audit): one row per run, with
 * what it found (at most the first 100 findings, as JSON), so that the status page and the metrics can read
 * the latest one.
 */
import type { Migration } from "../migration.ts";

export const auditMigration: Migration = {
  name: "0012-audit",
  async up(db, dialect) {
    const big = dialect === "postgres" ? "bigint" : "integer";
    const id = dialect === "postgres" ? "bigserial" : "integer";
    await db.schema
      .createTable("audit_runs")
      .addColumn("id", id, (c) => (dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement()))
      .addColumn("trigger", "text", (c) => c.notNull())
      .addColumn("started_at", big, (c) => c.notNull())
      .addColumn("finished_at", big, (c) => c.notNull())
      .addColumn("objects", big, (c) => c.notNull())
      .addColumn("bytes", big, (c) => c.notNull())
      .addColumn("mismatches", big, (c) => c.notNull())
      .addColumn("missing", big, (c) => c.notNull())
      .addColumn("repaired", big, (c) => c.notNull())
      .addColumn("findings", "text", (c) => c.notNull())
      .execute();
  },
};
