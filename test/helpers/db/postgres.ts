/**
 * A fresh PostgreSQL database per test suite, dropped afterwards. PostgreSQL is tested for real: when it is
 * unreachable the tests fail (set D1NODE_TEST_PG=skip to run the SQLite half alone, on purpose).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

export const ADMIN_URL = process.env.D1NODE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface TestPostgres {
  url: string;
  drop(): Promise<void>;
}

export async function createTestPostgresDatabase(): Promise<TestPostgres> {
  const name = `d1node_test_${randomBytes(6).toString("hex")}`;
  await withAdmin((client) => client.query(`create database ${name}`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      withAdmin((client) => client.query(`drop database if exists ${name} with (force)`)).then(
        () => undefined,
      ),
  };
}

/** Runs `work` on a connection to the administrative database. */
export async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
