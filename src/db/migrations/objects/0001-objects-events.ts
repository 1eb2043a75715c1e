/** 0001-objects-events: objects and their access rules, the event log, blob intents, the sysmeta refresh queue. */
import { idType, type Migration } from "../migration.ts";

export const objectsEventsMigration: Migration = {
  name: "0001-objects-events",
  async up(db, dialect) {
    const id = idType(dialect);
    const big = dialect === "postgres" ? "bigint" : "integer";
    await db.schema
      .createTable("objects")
      .addColumn("pid", id, (c) => c.primaryKey())
      .addColumn("sid", id)
      .addColumn("format_id", "text", (c) => c.notNull())
      .addColumn("size", big, (c) => c.notNull())
      .addColumn("checksum_algorithm", "text", (c) => c.notNull())
      .addColumn("checksum_value", "text", (c) => c.notNull())
      .addColumn("md5", "text", (c) => c.notNull())
      .addColumn("sha1", "text", (c) => c.notNull())
      .addColumn("sha256", "text", (c) => c.notNull())
      .addColumn("extra_algorithm", "text")
      .addColumn("extra_value", "text")
      .addColumn("content_key", "text", (c) => c.notNull())
      .addColumn("submitter", "text")
      .addColumn("rights_holder", "text", (c) => c.notNull())
      .addColumn("access_policy", "text", (c) => c.notNull())
      .addColumn("replication_policy", "text")
      .addColumn("obsoletes", id)
      .addColumn("obsoleted_by", id)
      .addColumn("archived", "integer", (c) => c.notNull())
      .addColumn("date_uploaded", big, (c) => c.notNull())
      .addColumn("date_modified", big, (c) => c.notNull())
      .addColumn("origin_mn", "text")
      .addColumn("authoritative_mn", "text")
      .addColumn("serial_version", big, (c) => c.notNull())
      .addColumn("media_type", "text")
      .addColumn("file_name", "text")
      .addColumn("replicas", "text", (c) => c.notNull())
      .addColumn("is_replica", "integer", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("objects_modified").on("objects").columns(["date_modified", "pid"]).execute();
    await db.schema.createIndex("objects_sid").on("objects").column("sid").execute();
    await db.schema.createIndex("objects_content").on("objects").column("content_key").execute();
    await db.schema
      .createTable("access_rules")
      .addColumn("pid", id, (c) => c.notNull())
      .addColumn("subject", "text", (c) => c.notNull())
      .addColumn("permission", "text", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("access_rules_pid").on("access_rules").column("pid").execute();
    await db.schema
      .createIndex("access_rules_subject")
      .on("access_rules")
      .columns(["subject", "pid"])
      .execute();
    await db.schema
      .createTable("events")
      .addColumn("id", dialect === "postgres" ? "bigserial" : "integer", (c) =>
        dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement(),
      )
      .addColumn("pid", id, (c) => c.notNull())
      .addColumn("ip", "text", (c) => c.notNull())
      .addColumn("user_agent", "text", (c) => c.notNull())
      .addColumn("subject", "text", (c) => c.notNull())
      .addColumn("event", "text", (c) => c.notNull())
      .addColumn("date_logged", big, (c) => c.notNull())
      .addColumn("node_id", "text", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("events_logged").on("events").columns(["date_logged", "id"]).execute();
    await db.schema.createIndex("events_pid").on("events").column("pid").execute();
    await db.schema
      .createTable("blob_intents")
      .addColumn("content_key", "text", (c) => c.primaryKey())
      .execute();
    await db.schema
      .createTable("sysmeta_refresh")
      .addColumn("pid", id, (c) => c.primaryKey())
      .addColumn("serial_version", big, (c) => c.notNull())
      .addColumn("date_modified", big, (c) => c.notNull())
      .addColumn("requested_at", big, (c) => c.notNull())
      .execute();
  },
};
