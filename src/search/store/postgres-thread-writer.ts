/**
 * A worker thread's own PostgreSQL connection, writing index rows as the node's connection would (index-store.ts
 * `writePostgres`), each batch in a transaction of its own. Two such threads write side by side (their pids are
 * distinct), so that both cores work for the rebuild: one backend inserts while the other thread makes rows.
 * New documents' search_values rows go in by COPY on the same connection, inside the transaction (copy-values.ts).
 * The caller notes (and announces to the other processes) the PIDs once the batch has committed.
 */
import { Kysely, PostgresDialect, type PostgresPool } from "kysely";
import type pg from "pg";
import type { Tables } from "../../db/schema.ts";
import { copyValues } from "./copy-values.ts";
import { writePostgres } from "./index-store.ts";
import type { RowWriter } from "./thread-writer.ts";

export function openPostgresThreadWriter(url: string): RowWriter {
  const opened = connect(url);
  // A failed connection fails the batches (each page is then indexed on the node's connection), nothing more.
  opened.catch(() => undefined);
  const db = new Kysely<Tables>({
    dialect: new PostgresDialect({ pool: async () => (await opened).pool }),
  });
  return {
    async write(rows) {
      const { client } = await opened;
      await db
        .transaction()
        .execute((tx) => writePostgres(tx, rows, (_tx, values) => copyValues(client, values)));
    },
    async close() {
      await db.destroy();
      await opened.then(({ client }) => client.end()).catch(() => undefined);
    },
  };
}

/** One connection, as Kysely's pool and as itself (the thread writes one batch at a time: never shared). */
async function connect(url: string): Promise<{ client: pg.Client; pool: PostgresPool }> {
  const { default: pgModule } = await import("pg");
  const client = new pgModule.Client({ connectionString: url });
  // A connection the server ends fails the statement under way; idle, it must not end the thread.
  client.on("error", () => undefined);
  await client.connect();
  const pool: PostgresPool = {
    connect: async () => ({
      query: client.query.bind(client) as never,
      release: () => undefined,
    }),
    // Ended by the writer's close, whether or not Kysely ever used it.
    end: async () => undefined,
  };
  return { client, pool };
}
