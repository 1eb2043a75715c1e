/**
 * 0021-import-copies: the objects `d1node import` wrote, per source node (its base URL), with the
 * dateSysMetadataModified it wrote. A later run replaces an object's system metadata only where this table says
 * the import wrote it from that source and nothing here changed it since: a source never rewrites a record it did
 * not give.
 */
import { idType, type Migration } from "../migration.ts";

export const importCopiesMigration: Migration = {
  name: "0021-import-copies",
  async up(db, dialect) {
    await db.schema
      .createTable("import_copies")
      .addColumn("source", "text", (c) => c.notNull())
      .addColumn("pid", idType(dialect), (c) => c.notNull())
      .addColumn("date_modified", dialect === "postgres" ? "bigint" : "integer", (c) => c.notNull())
      .addPrimaryKeyConstraint("import_copies_pk", ["source", "pid"])
      .execute();
  },
};
