/**
 * 0024-uploads: resumable uploads in progress, one row each, seen by every process of the node (their bytes are
 * in the object store's place for uploads): the creator, the declared size, the bytes received, the creation
 * time (expiry counts from it) and the rest of the upload as JSON (tus metadata, where its bytes stand).
 */
import { idType, type Migration } from "../migration.ts";

export const uploadsMigration: Migration = {
  name: "0024-uploads",
  async up(db, dialect) {
    const big = dialect === "postgres" ? "bigint" : "integer";
    await db.schema
      .createTable("uploads")
      .addColumn("id", idType(dialect), (c) => c.primaryKey())
      .addColumn("owner", "text", (c) => c.notNull())
      .addColumn("size", big)
      .addColumn("received", big, (c) => c.notNull())
      .addColumn("created_ms", big, (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("uploads_by_owner").on("uploads").column("owner").execute();
  },
};
