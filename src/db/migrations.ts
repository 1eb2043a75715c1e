/**
 * Schema migrations, in code, applied in order at open. Each runs once; the applied ones are recorded in
 * d1node_migrations. On PostgreSQL an advisory lock keeps two processes from migrating at once.
 */
import { type Kysely, sql } from "kysely";
import { cnMigration } from "./cn-migration.ts";
import { searchIndexMigration } from "./migrations/0004-search-index.ts";
import { tasksMigration } from "./migrations/0005-tasks.ts";
import { harvestMigration } from "./migrations/0006-harvest.ts";
import { replicationMigration } from "./migrations/0007-replication.ts";
import { propagationLogsMigration } from "./migrations/0008-propagation-logs.ts";
import { searchSpeedMigration } from "./migrations/0009-search-speed.ts";
import { identifiersMigration } from "./migrations/0010-identifiers.ts";
import type { Tables } from "./schema.ts";

export type Dialect = "sqlite" | "postgres";

export interface Migration {
  name: string;
  up(db: Kysely<Tables>, dialect: Dialect): Promise<void>;
}

/** Identifier columns: byte-wise comparison in PostgreSQL, like SQLite's default. */
export const idType = (dialect: Dialect) => (dialect === "postgres" ? sql`text collate "C"` : sql`text`);

const MIGRATIONS: Migration[] = [
  {
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
      await db.schema
        .createIndex("objects_modified")
        .on("objects")
        .columns(["date_modified", "pid"])
        .execute();
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
  },
  {
    // Access rows keyed by (pid, subject): the rights holder and every granted subject, once each with its
    // strongest permission; removed with their object (foreign key, cascading).
    name: "0002-access-rows",
    async up(db, dialect) {
      await db.schema
        .createTable("access_rules_next")
        .addColumn("pid", idType(dialect), (c) => c.notNull())
        .addColumn("subject", "text", (c) => c.notNull())
        .addColumn("permission", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("access_rules_key", ["pid", "subject"])
        .addForeignKeyConstraint("access_rules_object", ["pid"], "objects", ["pid"], (c) =>
          c.onDelete("cascade"),
        )
        .$call((table) => (dialect === "sqlite" ? table.modifyEnd(sql`without rowid`) : table))
        .execute();
      await sql`insert into access_rules_next (pid, subject, permission)
        select pid, subject, case max(strength) when 3 then 'changePermission' when 2 then 'write' else 'read' end
        from (
          select pid, subject, case permission when 'changePermission' then 3 when 'write' then 2 else 1 end as strength
          from access_rules where pid in (select pid from objects)
          union all
          select pid, rights_holder, 3 from objects
        ) as granted
        group by pid, subject`.execute(db);
      await db.schema.dropTable("access_rules").execute();
      await db.schema.alterTable("access_rules_next").renameTo("access_rules").execute();
      await db.schema
        .createIndex("access_rules_subject")
        .on("access_rules")
        .columns(["subject", "pid"])
        .execute();
    },
  },
  cnMigration,
  searchIndexMigration,
  tasksMigration,
  harvestMigration,
  replicationMigration,
  propagationLogsMigration,
  searchSpeedMigration,
  identifiersMigration,
];

export async function migrate(db: Kysely<Tables>, dialect: Dialect): Promise<void> {
  await db.connection().execute(async (conn) => {
    if (dialect === "postgres") await sql`select pg_advisory_lock(727001)`.execute(conn);
    try {
      await sql`create table if not exists d1node_migrations (name text primary key, applied_at bigint not null)`.execute(
        conn,
      );
      const done = await sql<{ name: string }>`select name from d1node_migrations`.execute(conn);
      const applied = new Set(done.rows.map((r) => r.name));
      for (const migration of MIGRATIONS) {
        if (applied.has(migration.name)) continue;
        await conn.transaction().execute(async (tx) => {
          await migration.up(tx, dialect);
          await sql`insert into d1node_migrations (name, applied_at) values (${migration.name}, ${Date.now()})`.execute(
            tx,
          );
        });
      }
    } finally {
      if (dialect === "postgres") await sql`select pg_advisory_unlock(727001)`.execute(conn);
    }
  });
}
