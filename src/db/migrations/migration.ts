/**
 * What a migration is. A migration is a frozen snapshot: it imports nothing but Kysely and this folder, and sees
 * the database untyped (`MigrationDb`), since the tables it meets are the ones of its time, not today's `Tables`.
 */
import { type Kysely, sql } from "kysely";

export type Dialect = "sqlite" | "postgres";

// biome-ignore lint/suspicious/noExplicitAny: untyped on purpose, as Kysely recommends for migrations.
export type MigrationDb = Kysely<any>;

export interface Migration {
  /** Recorded in d1node_migrations once applied; never renamed. */
  name: string;
  up(db: MigrationDb, dialect: Dialect): Promise<void>;
}

/** Identifier columns: byte-wise comparison in PostgreSQL, like SQLite's default. */
export const idType = (dialect: Dialect) => (dialect === "postgres" ? sql`text collate "C"` : sql`text`);
