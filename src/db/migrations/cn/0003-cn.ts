/**
 * Migration 0003-cn: the Coordinating Node's registry, reservations, synchronize queue, accounts, equivalent
 * identities (and pending mapping requests) and groups.
 */
import { idType, type Migration } from "../migration.ts";

export const cnMigration: Migration = {
  name: "0003-cn",
  async up(db, dialect) {
    const id = idType(dialect);
    const big = dialect === "postgres" ? "bigint" : "integer";
    await db.schema
      .createTable("cn_nodes")
      .addColumn("node_id", "text", (c) => c.primaryKey())
      .addColumn("base_url", "text", (c) => c.notNull().unique())
      .addColumn("node_xml", "text", (c) => c.notNull())
      .addColumn("approved", "integer", (c) => c.notNull())
      .addColumn("registered_by", "text", (c) => c.notNull())
      .addColumn("registered_at", big, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("cn_reservations")
      .addColumn("id", id, (c) => c.primaryKey())
      .addColumn("subject", "text", (c) => c.notNull())
      .addColumn("reserved_at", big, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("cn_sync_tasks")
      .addColumn("id", dialect === "postgres" ? "bigserial" : "integer", (c) =>
        dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement(),
      )
      .addColumn("pid", id, (c) => c.notNull())
      .addColumn("node_id", "text", (c) => c.notNull())
      .addColumn("requested_by", "text", (c) => c.notNull())
      .addColumn("queued_at", big, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("cn_accounts")
      .addColumn("subject", "text", (c) => c.primaryKey())
      .addColumn("person", "text", (c) => c.notNull())
      .addColumn("verified", "integer", (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("cn_equivalents")
      .addColumn("subject", "text", (c) => c.notNull())
      .addColumn("equivalent", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint("cn_equivalents_key", ["subject", "equivalent"])
      .execute();
    await db.schema
      .createTable("cn_pending_maps")
      .addColumn("requester", "text", (c) => c.notNull())
      .addColumn("target", "text", (c) => c.notNull())
      .addColumn("requested_at", big, (c) => c.notNull())
      .addPrimaryKeyConstraint("cn_pending_maps_key", ["requester", "target"])
      .execute();
    await db.schema
      .createTable("cn_groups")
      .addColumn("subject", "text", (c) => c.primaryKey())
      .addColumn("group_name", "text", (c) => c.notNull().unique())
      .addColumn("group_json", "text", (c) => c.notNull())
      .execute();
  },
};
