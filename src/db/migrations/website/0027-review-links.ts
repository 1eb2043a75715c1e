/**
 * 0027-review-links: reviewer links. Each row is one secret link a dataset's rights holder made so that someone
 * without an account (a journal's reviewer) can read that one dataset: the link's public id (named in the event
 * log and used to revoke it), the SHA-256 of its secret (a copy of the table holds no usable link), the pid it
 * addresses and the resource map whose members it opens, whose dataset it is, whether names are hidden, and
 * when it was made, ends and was revoked (revoked rows are kept so the owner can still list them).
 */
import { idType, type Migration } from "../migration.ts";

export const reviewLinksMigration: Migration = {
  name: "0027-review-links",
  async up(db, dialect) {
    const big = dialect === "postgres" ? "bigint" : "integer";
    await db.schema
      .createTable("review_links")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("secret_hash", "text", (c) => c.notNull())
      .addColumn("pid", idType(dialect), (c) => c.notNull())
      .addColumn("package_pid", idType(dialect))
      .addColumn("rights_holder", idType(dialect), (c) => c.notNull())
      .addColumn("created_by", idType(dialect), (c) => c.notNull())
      .addColumn("anonymise", "integer", (c) => c.notNull())
      .addColumn("label", "text")
      .addColumn("created_at", big, (c) => c.notNull())
      .addColumn("expires_at", big, (c) => c.notNull())
      .addColumn("revoked_at", big)
      .execute();
    await db.schema.createIndex("review_links_by_pid").on("review_links").column("pid").execute();
    await db.schema
      .createIndex("review_links_by_rights_holder")
      .on("review_links")
      .column("rights_holder")
      .execute();
  },
};
