/**
 * 0006-harvest: how far the Coordinating Node has harvested each Member Node. `harvested_to`: every object the
 * node lists with dateSysMetadataModified before it is synchronized. While a window is open, `window_to` is its
 * end and (`cursor_from`, `cursor_start`) the position of the next page, saved after every page so that a
 * restarted CN resumes there. `list_params` remembers which listObjects parameters the node accepts.
 */
import type { Migration } from "../migration.ts";

export const harvestMigration: Migration = {
  name: "0006-harvest",
  async up(db, dialect) {
    const big = dialect === "postgres" ? "bigint" : "integer";
    await db.schema
      .createTable("harvest_progress")
      .addColumn("node_id", "text", (c) => c.primaryKey())
      .addColumn("harvested_to", big)
      .addColumn("window_to", big)
      .addColumn("cursor_from", big)
      .addColumn("cursor_start", "integer", (c) => c.notNull())
      .addColumn("list_params", "text", (c) => c.notNull())
      .addColumn("updated_at", big, (c) => c.notNull())
      .execute();
  },
};
