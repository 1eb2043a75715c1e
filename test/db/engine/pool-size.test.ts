/** databasePoolSize: a PostgreSQL node process opens no more connections than its pool allows. */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import type { Database } from "../../../src/db/types.ts";
import { openNodeDatabase } from "../../../src/node/open-database.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../../helpers/db/postgres.ts";

describe("PostgreSQL pool size", () => {
  let pg: TestPostgres;
  let db: Database;
  before(async () => {
    pg = await createTestPostgresDatabase();
    db = await openNodeDatabase({
      url: pg.url,
      connectTimeoutSeconds: 10,
      statementTimeoutSeconds: 30,
      poolSize: 2,
    });
  });
  after(async () => {
    await db.close();
    await pg.drop();
  });

  it("runs many statements at once on at most poolSize connections", async () => {
    const backends = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const { rows } = await sql<{
          pid: number;
        }>`select pg_backend_pid() as pid from pg_sleep(0.02)`.execute(db.kysely);
        return rows[0]?.pid;
      }),
    );
    assert.equal(backends.length, 8);
    assert.ok(new Set(backends).size <= 2, `used ${new Set(backends).size} connections`);
  });
});
