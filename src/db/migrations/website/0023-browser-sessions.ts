/**
 * 0023-browser-sessions: people signed in through a browser (OpenID Connect). `browser_sessions` holds each
 * session under the SHA-256 of its cookie value (a copy of the table holds no usable cookie) until it expires or
 * is logged out; `sign_in_requests` the sign-ins under way (state, nonce, PKCE verifier, where to return), so
 * that the provider's answer may reach any serving process; `signed_in_people` who signed in, with the name and
 * e-mail the provider gave (for SubjectInfo).
 */
import { idType, type Migration } from "../migration.ts";

export const browserSessionsMigration: Migration = {
  name: "0023-browser-sessions",
  async up(db, dialect) {
    const big = dialect === "postgres" ? "bigint" : "integer";
    await db.schema
      .createTable("browser_sessions")
      .addColumn("id_hash", "text", (c) => c.primaryKey())
      .addColumn("subject", idType(dialect), (c) => c.notNull())
      .addColumn("full_name", "text")
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("created_at", big, (c) => c.notNull())
      .addColumn("expires_at", big, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex("browser_sessions_by_expiry")
      .on("browser_sessions")
      .column("expires_at")
      .execute();
    await db.schema
      .createTable("sign_in_requests")
      .addColumn("state_hash", "text", (c) => c.primaryKey())
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("code_verifier", "text", (c) => c.notNull())
      .addColumn("nonce", "text", (c) => c.notNull())
      .addColumn("target", "text", (c) => c.notNull())
      .addColumn("expires_at", big, (c) => c.notNull())
      .execute();
    await db.schema
      .createTable("signed_in_people")
      .addColumn("subject", idType(dialect), (c) => c.primaryKey())
      .addColumn("full_name", "text")
      .addColumn("given_name", "text")
      .addColumn("family_name", "text")
      .addColumn("email", "text")
      .addColumn("provider", "text", (c) => c.notNull())
      .addColumn("first_signed_in", big, (c) => c.notNull())
      .addColumn("last_signed_in", big, (c) => c.notNull())
      .execute();
  },
};
