/**
 * Group commit (src/db/group-commit.ts): concurrent transactions commit together on SQLite, each with its own
 * outcome. The isolation cases run on both dialects (PostgreSQL commits each transaction on its own).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import SQLite from "better-sqlite3";
import { Kysely, sql } from "kysely";
import { GroupCommitDialect } from "../../src/db/group-commit.ts";
import { DuplicateKeyError } from "../../src/db/index.ts";
import type { Database } from "../../src/db/types.ts";
import { forEachDialect } from "../helpers/databases.ts";
import { storedObject } from "../helpers/sysmeta.ts";

forEachDialect((_name, open) => {
  describe("concurrent transactions, one failing", () => {
    let db: Database;
    before(async () => {
      db = await open();
    });

    it("fail only the one with a duplicate pid; nothing of it is stored", async () => {
      await db.objects.insert(storedObject("group-taken"));
      const write = (pid: string, key: string) =>
        db.transaction(async (tx) => {
          await tx.blobIntents.add(key);
          await tx.objects.insert(storedObject(pid));
        });
      const outcomes = await Promise.allSettled([
        write("group-a", "key-a"),
        write("group-b", "key-b"),
        write("group-taken", "key-taken"),
        write("group-c", "key-c"),
      ]);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ["fulfilled", "fulfilled", "rejected", "fulfilled"],
      );
      assert.ok((outcomes[2] as PromiseRejectedResult).reason instanceof DuplicateKeyError);
      for (const pid of ["group-a", "group-b", "group-c"]) assert.ok(await db.objects.get(pid), pid);
      assert.deepEqual((await db.blobIntents.list()).sort(), ["key-a", "key-b", "key-c"]);
      for (const key of ["key-a", "key-b", "key-c"]) await db.blobIntents.remove(key);
    });

    it("fail only the one that throws, after the others wrote", async () => {
      const outcomes = await Promise.allSettled([
        db.transaction((tx) => tx.objects.insert(storedObject("group-d"))),
        db.transaction(async (tx) => {
          await tx.objects.insert(storedObject("group-thrown"));
          throw new Error("refused");
        }),
        db.transaction((tx) => tx.objects.insert(storedObject("group-e"))),
      ]);
      assert.deepEqual(
        outcomes.map((o) => o.status),
        ["fulfilled", "rejected", "fulfilled"],
      );
      assert.equal(await db.objects.get("group-thrown"), undefined);
      assert.ok(await db.objects.get("group-d"));
      assert.ok(await db.objects.get("group-e"));
    });
  });
});

describe("SQLite group commit", () => {
  let dir: string;
  let handle: SQLite.Database;
  let db: Kysely<{ t: { id: number; v: string } }>;
  let commits = 0;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "d1node-group-"));
    handle = new SQLite(path.join(dir, "db.sqlite"));
    handle.pragma("journal_mode = WAL");
    const exec = handle.exec.bind(handle);
    handle.exec = (text: string) => {
      if (text === "commit") commits++;
      return exec(text);
    };
    db = new Kysely({ dialect: new GroupCommitDialect({ database: handle }, handle) });
    await sql`create table t (id integer primary key, v text not null)`.execute(db);
  });
  after(async () => {
    await db.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  const insert = (id: number) =>
    db.transaction().execute((tx) => tx.insertInto("t").values({ id, v: "x" }).execute());
  const count = async () =>
    (await db.selectFrom("t").select(sql<number>`count(*)`.as("n")).executeTakeFirstOrThrow()).n;

  it("commit transactions ready in the same turn together, each settled only after the commit", async () => {
    commits = 0;
    let settled = 0;
    const writes = [1, 2, 3, 4, 5].map((id) => insert(id).then(() => settled++));
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.all(writes);
    assert.equal(settled, 5);
    assert.equal(commits, 1);
    assert.equal(handle.inTransaction, false);
    assert.equal(await count(), 5);
  });

  it("a write outside a transaction commits the open group at once", async () => {
    const grouped = insert(10);
    await new Promise((resolve) => setTimeout(resolve, 0));
    commits = 0;
    const pending = insert(11);
    await Promise.resolve();
    await db.insertInto("t").values({ id: 12, v: "y" }).execute();
    assert.equal(handle.inTransaction, false);
    await Promise.all([grouped, pending]);
    assert.equal(commits, 1);
    assert.equal(await count(), 8);
  });

  it("a failed commit fails every member of its group and keeps none of their rows", async () => {
    const before = await count();
    handle.exec("create table parent (id integer primary key)");
    handle.exec(
      "create table child (id integer primary key, parent integer references parent(id) deferrable initially deferred)",
    );
    handle.pragma("foreign_keys = ON");
    const outcomes = await Promise.allSettled([
      insert(20),
      db.transaction().execute((tx) => sql`insert into child (id, parent) values (1, 99)`.execute(tx)),
      insert(21),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ["rejected", "rejected", "rejected"],
    );
    assert.equal(handle.inTransaction, false);
    assert.equal(await count(), before);
    await insert(22);
    assert.equal(await count(), before + 1);
  });
});
