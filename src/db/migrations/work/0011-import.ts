/**
 * 0011-import: `d1node import` positions and failures, per source node (its base URL). `import_progress` keeps the
 * object listing's position as harvest_progress does (`harvested_to`, the open window and its cursor, the accepted
 * listObjects parameters) and `logs_to`, the newest dateLogged copied from the source's event log.
 * `import_failures` names each object of the source that could not be copied, and why; the next run tries it first.
 */
import { idType, type Migration } from "../migration.ts";

export const importMigration: Migration = {
  name: "0011-import",
  async up(db, dialect) {
    const big = dialect === "postgres" ? "bigint" : "integer";
    await db.schema
      .createTable("import_progress")
      .addColumn("source", "text", (c) => c.primaryKey())
      .addColumn("harvested_to", big)
      .addColumn("window_to", big)
      .addColumn("cursor_from", big)
      .addColumn("cursor_start", "integer", (c) => c.notNull())
      .addColumn("list_params", "text", (c) => c.notNull())
      .addColumn("logs_to", big)
      .addColumn("updated_at", big, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("import_failures")
      .addColumn("source", "text", (c) => c.notNull())
      .addColumn("pid", idType(dialect), (c) => c.notNull())
      .addColumn("reason", "text", (c) => c.notNull())
      .addColumn("failed_at", big, (c) => c.notNull())
      .addPrimaryKeyConstraint("import_failures_pk", ["source", "pid"])
      .execute();
  },
};
