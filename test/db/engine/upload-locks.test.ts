/**
 * Upload locks across processes (PostgreSQL): two holders (two processes' connections) never hold one upload at
 * once; a hold is let go at release or when its connection ends (a process that dies); a hold whose connection
 * was lost says so at release. SQLite, one process, holds every upload at once.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { uploadLocks } from "../../../src/db/objects/upload-locks.ts";
import { createTestPostgresDatabase, type TestPostgres, withAdmin } from "../../helpers/db/postgres.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const ID = "0123456789abcdef0123456789abcdef";

describe("upload locks", { skip: process.env.D1NODE_TEST_PG === "skip" }, () => {
  let database: TestPostgres;
  before(async () => {
    database = await createTestPostgresDatabase();
  });
  after(() => database?.drop());

  it("keep a second process out until the first lets go", async () => {
    const one = uploadLocks(database.url);
    const two = uploadLocks(database.url);
    try {
      const held = await one.tryHold(ID);
      assert.ok(held);
      assert.equal(await two.tryHold(ID), undefined);
      assert.ok(await two.tryHold(ID.replace("0", "f")), "another upload is free");
      assert.equal(await held.release(), true);
      const next = await two.tryHold(ID);
      assert.ok(next);
      await next.release();
    } finally {
      await one.close();
      await two.close();
    }
  });

  it("let go when the holder's connection ends, and the holder hears it lost its hold", async () => {
    const one = uploadLocks(database.url);
    const two = uploadLocks(database.url);
    try {
      const held = await one.tryHold(ID);
      assert.ok(held);
      // Only this test's database: other tests may hold upload locks in theirs.
      const name = new URL(database.url).pathname.slice(1);
      await withAdmin((admin) =>
        admin.query(
          `select pg_terminate_backend(pid) from pg_stat_activity
            where datname = $1 and application_name = 'd1node upload locks'
              and pid in (select pid from pg_locks where locktype = 'advisory' and granted)`,
          [name],
        ),
      );
      const taken = await eventually("the hold free", async () => (await two.tryHold(ID)) ?? undefined);
      assert.equal(await held.release(), false);
      await taken.release();
      // The first reconnects for its next hold.
      const again = await eventually(
        "a hold after reconnecting",
        async () => (await one.tryHold(ID).catch(() => undefined)) ?? undefined,
      );
      assert.equal(await again.release(), true);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it("hold every upload at once on SQLite (one process)", async () => {
    const locks = uploadLocks(undefined);
    const first = await locks.tryHold(ID);
    assert.ok(first && (await locks.tryHold(ID)));
    assert.equal(await first.release(), true);
  });
});
