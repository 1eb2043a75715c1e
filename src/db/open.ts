/**
 * Opening the database: a postgres:// URL selects PostgreSQL (a pg pool), anything else SQLite in a file
 * (better-sqlite3). One code path (Kysely) serves both; migrations run on open.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import { eventLog } from "./events.ts";
import { type Dialect, migrate } from "./migrations.ts";
import { objectRepository } from "./objects.ts";
import { KeysetPager } from "./pager.ts";
import type { Tables } from "./schema.ts";
import { blobIntents, sysmetaRefreshQueue } from "./small-tables.ts";
import type { Database } from "./types.ts";

export interface OpenOptions {
  /** postgres://user@host:port/db */
  url?: string;
  /** SQLite file, used when no URL is given. */
  sqlitePath?: string;
}

/** PostgreSQL BIGINT (oid 20) as JS numbers: sizes and millisecond dates stay below 2^53. */
const pgTypes = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === 20
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export async function openDatabase(options: OpenOptions): Promise<Database> {
  const dialect: Dialect = options.url?.startsWith("postgres") ? "postgres" : "sqlite";
  const db = new Kysely<Tables>({
    dialect: dialect === "postgres" ? postgres(options.url as string) : sqlite(options),
  });
  await migrate(db, dialect);
  const pager = new KeysetPager();
  const events = eventLog(db);
  return {
    dialect,
    objects: objectRepository(db, pager),
    blobIntents: blobIntents(db),
    sysmetaRefresh: sysmetaRefreshQueue(db),
    events,
    async transaction(work) {
      try {
        return await db
          .transaction()
          .execute((tx) => work({ objects: objectRepository(tx, pager), blobIntents: blobIntents(tx) }));
      } finally {
        // Positions may have shifted under a list that ran while the transaction was open.
        pager.invalidate();
      }
    },
    async close() {
      await events.close();
      await db.destroy();
    },
  };
}

function postgres(url: string) {
  return new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 10, types: pgTypes }) });
}

/**
 * WAL with synchronous=NORMAL: a commit survives a crash of the process (what the crash tests check); an OS
 * crash or power loss can lose the last commits but never corrupts the database. synchronous=FULL would cost
 * an fsync per commit (measured: ~600 vs ~830 small creates/s).
 */
function sqlite(options: OpenOptions) {
  const file = options.sqlitePath ?? "d1node.sqlite";
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const database = new SQLite(file);
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = NORMAL");
  database.pragma("busy_timeout = 5000");
  return new SqliteDialect({ database });
}
