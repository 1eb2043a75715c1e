/**
 * 0005-tasks: the durable task queue. A task is `ready` until its run_at, `running` while a worker holds its
 * lease, and `dead` once it failed for good; finished tasks are deleted. At most one `ready` task per (kind, key).
 */
import { sql } from "kysely";
import type { Migration } from "../migration.ts";

export const tasksMigration: Migration = {
  name: "0005-tasks",
  async up(db, dialect) {
    const big = dialect === "postgres" ? "bigint" : "integer";
    await db.schema
      .createTable("tasks")
      .addColumn("id", dialect === "postgres" ? "bigserial" : "integer", (c) =>
        dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement(),
      )
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("key", "text", (c) => c.notNull())
      .addColumn("payload", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("attempts", "integer", (c) => c.notNull())
      .addColumn("run_at", big, (c) => c.notNull())
      .addColumn("lease_owner", "text")
      .addColumn("lease_until", big)
      .addColumn("last_error", "text")
      .addColumn("created_at", big, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("tasks_waiting")
      .on("tasks")
      .columns(["kind", "key"])
      .unique()
      .where(sql.ref("state"), "=", "ready")
      .execute();
    await db.schema.createIndex("tasks_due").on("tasks").columns(["state", "run_at"]).execute();
  },
};
