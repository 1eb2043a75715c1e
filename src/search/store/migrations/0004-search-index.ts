/**
 * 0004-search-index: the search index tables. search_docs holds each object's stored fields (JSON) and the
 * columns the common filters and sorts use; search_values one row per (field, value) for every other clause;
 * search_relations the package relations resource maps state.
 */
import { sql } from "kysely";
import { idType, type Migration } from "../../../db/migrations/migration.ts";

export const searchIndexMigration: Migration = {
  name: "0004-search-index",
  async up(db, dialect) {
    const big = dialect === "postgres" ? "bigint" : "integer";
    const text = dialect === "postgres" ? sql`text collate "C"` : sql`text`;
    await db.schema
      .createTable("search_docs")
      .addColumn("pid", idType(dialect), (c) => c.primaryKey())
      .addColumn("doc", "text", (c) => c.notNull())
      .addColumn("science", "text", (c) => c.notNull())
      .addColumn("format_type", "text")
      .addColumn("obsoleted", "integer", (c) => c.notNull())
      .addColumn("archived", "integer", (c) => c.notNull())
      .addColumn("is_public", "integer", (c) => c.notNull())
      .addColumn("date_uploaded", big)
      .execute();
    await db.schema
      .createIndex("search_docs_listing")
      .on("search_docs")
      .columns(["format_type", "obsoleted", "archived", "date_uploaded"])
      .execute();
    await db.schema.createIndex("search_docs_uploaded").on("search_docs").column("date_uploaded").execute();
    await db.schema
      .createTable("search_values")
      .addColumn("pid", idType(dialect), (c) => c.notNull())
      .addColumn("field", "text", (c) => c.notNull())
      .addColumn("value", text, (c) => c.notNull())
      .addColumn("num", "double precision")
      .addPrimaryKeyConstraint("search_values_key", ["field", "value", "pid"])
      .$call((table) => (dialect === "sqlite" ? table.modifyEnd(sql`without rowid`) : table))
      .execute();
    await db.schema.createIndex("search_values_pid").on("search_values").columns(["pid", "field"]).execute();
    await db.schema
      .createIndex("search_values_num")
      .on("search_values")
      .columns(["field", "num", "pid"])
      .where(sql.ref("num"), "is not", null)
      .execute();
    // Package relations from OAI-ORE resource maps: (map, subject) -> field value, so that an object indexed
    // before or after its map gets resourceMap / documents / isDocumentedBy.
    await db.schema
      .createTable("search_relations")
      .addColumn("map_pid", idType(dialect), (c) => c.notNull())
      .addColumn("subject", idType(dialect), (c) => c.notNull())
      .addColumn("field", "text", (c) => c.notNull())
      .addColumn("object", idType(dialect), (c) => c.notNull())
      .addPrimaryKeyConstraint("search_relations_key", ["map_pid", "subject", "field", "object"])
      .execute();
    await db.schema
      .createIndex("search_relations_subject")
      .on("search_relations")
      .column("subject")
      .execute();
  },
};
