/** Transactions, opening (migrations) and bulk loading, on SQLite and PostgreSQL. */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { sql } from "kysely";
import { bulkLoadObjects, DuplicateKeyError } from "../../../src/db/index.ts";
import type { BatchFollowUp } from "../../../src/db/objects/bulk-load.ts";
import type { Database } from "../../../src/db/types.ts";
import { dateAt, storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

forEachDialect((name, open) => {
  describe("transactions", () => {
    let db: Database;
    before(async () => {
      db = await open();
    });

    it("roll back every write on throw", async () => {
      await db.objects.insert(storedObject("tx-kept", { formatId: "before" }));
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.objects.insert(storedObject("tx-rolled-back"));
          await tx.objects.replaceSysmeta({ ...storedObject("tx-kept").sysmeta, formatId: "after" });
          await tx.blobIntents.add("tx-key");
          await tx.objects.remove("tx-kept");
          throw new Error("boom");
        }),
        /boom/,
      );
      assert.equal(await db.objects.get("tx-rolled-back"), undefined);
      assert.equal((await db.objects.get("tx-kept"))?.sysmeta.formatId, "before");
      assert.deepEqual(await db.blobIntents.list(), []);
    });

    if (name === "sqlite")
      it("fail with their own error when SQLite has already rolled them back (a full disk)", async () => {
        // SQLite ends a transaction itself on some errors (SQLITE_FULL, I/O errors), as RAISE(ROLLBACK) does
        // here; the rollback after it must not replace the error with "cannot rollback - no transaction is active".
        await sql`create table full_disk (n integer)`.execute(db.kysely);
        await sql`create trigger full_disk_insert before insert on full_disk
          begin select raise(rollback, 'database or disk is full'); end`.execute(db.kysely);
        await assert.rejects(
          db.kysely.transaction().execute(async (tx) => {
            await sql`insert into full_disk values (1)`.execute(tx);
          }),
          /^SqliteError: database or disk is full$|database or disk is full/,
        );
        await db.objects.insert(storedObject("tx-after-full"));
        assert.ok(await db.objects.get("tx-after-full"), "the connection writes again");
      });

    it("run concurrent transactions without interleaving, and reads see only committed rows", async () => {
      let reachedSleep!: () => void;
      const sleeping = new Promise<void>((resolve) => {
        reachedSleep = resolve;
      });
      const first = db.transaction(async (tx) => {
        await tx.objects.insert(storedObject("tx-a"));
        reachedSleep();
        await sleep(50);
        throw new Error("first fails");
      });
      await sleeping;
      // Started while the first is open: on SQLite it waits for it; on PostgreSQL it runs beside it.
      const second = db.transaction(async (tx) => {
        assert.equal(await tx.objects.get("tx-a"), undefined);
        await tx.objects.insert(storedObject("tx-b"));
        await tx.blobIntents.add("tx-b-key");
        return "second";
      });
      const outside = db.objects.get("tx-a");
      const listed = db.objects.list({ identifier: "tx-a" }, 0, 10);
      const [a, b, got, page] = await Promise.allSettled([first, second, outside, listed]);
      assert.equal(a.status, "rejected");
      assert.deepEqual(b, { status: "fulfilled", value: "second" });
      assert.deepEqual(got, { status: "fulfilled", value: undefined });
      assert.equal(page.status === "fulfilled" && page.value.total, 0);
      assert.equal(await db.objects.get("tx-a"), undefined);
      assert.ok(await db.objects.get("tx-b"));
      assert.deepEqual(await db.blobIntents.list(), ["tx-b-key"]);
    });

    it("show a transaction's rows to lists once it commits", async () => {
      const filter = { fromDate: dateAt(70_000_000) };
      assert.equal((await db.objects.list(filter, 0, 10)).total, 0);
      await db.transaction(async (tx) => {
        await tx.objects.insert(storedObject("tx-listed", {}, 70_000_000));
      });
      assert.deepEqual(
        (await db.objects.list(filter, 0, 10)).items.map((i) => i.identifier),
        ["tx-listed"],
      );
    });
  });

  describe("opening", () => {
    it("migrates once: reopening finds the data, and concurrent opens agree", async () => {
      const db = await open();
      await db.objects.insert(storedObject("kept"));
      await db.close();
      await db.close();
      const again = await open(db);
      assert.ok(await again.objects.get("kept"));
      if (name === "postgres") {
        const others = await Promise.all([open(again), open(again), open(again)]);
        for (const other of others) assert.ok(await other.objects.get("kept"));
      }
    });

    it("fails on a PostgreSQL server that cannot be reached", { skip: name !== "postgres" }, async () => {
      const { openNodeDatabase } = await import("../../../src/node/open-database.ts");
      await assert.rejects(openNodeDatabase({ url: "postgres://postgres@127.0.0.1:1/none" }));
    });
  });

  describe("bulk load", () => {
    it("loads in one transaction, builds the indexes again, and refuses duplicates", async () => {
      const db = await open();
      const count = 2345;
      const objects = function* () {
        for (let i = 0; i < count; i++) {
          yield storedObject(`bulk-${String(i).padStart(5, "0")}`, { seriesId: `bulk-sid-${i % 10}` }, i);
        }
      };
      const progress: number[] = [];
      const loaded = await bulkLoadObjects(db, objects(), (n) => progress.push(n), { batchSize: 1000 });
      assert.equal(loaded, count);
      assert.deepEqual(progress, [1000, 2000, 2345]);
      assert.deepEqual(
        await db.objects.get("bulk-00042"),
        storedObject("bulk-00042", { seriesId: "bulk-sid-2" }, 42),
      );
      const page = await db.objects.list({ readableBy: ["public"] }, 2000, 1000);
      assert.equal(page.total, count);
      assert.equal(page.items[0]?.identifier, "bulk-02000");
      assert.deepEqual((await db.objects.pidsOfSeries("bulk-sid-3")).length, 235);
      // The load registers its PIDs and series (the newest head of each) as the write paths do.
      assert.equal(await db.objects.headOfSeries("bulk-sid-3"), "bulk-02343");
      assert.equal(await db.objects.isIdentifierInUse("bulk-01234"), true);
      // Loading into a non-empty database keeps its indexes; a duplicate PID fails the whole load.
      const more = [storedObject("bulk-new"), storedObject("bulk-00001")];
      await assert.rejects(bulkLoadObjects(db, more), DuplicateKeyError);
      assert.equal(await db.objects.get("bulk-new"), undefined);
      assert.equal(await bulkLoadObjects(db, [storedObject("bulk-new", {}, 10_000)]), 1);
      assert.equal((await db.objects.list({}, 0, 1)).total, count + 1);
      await db.objects.remove("bulk-new");
      assert.equal(await bulkLoadObjects(db, []), 0);
    });

    it("queues a bulk load's follow-up tasks in its transaction: both commit, or neither", async () => {
      const db = await open();
      const batches: number[] = [];
      const followUp: BatchFollowUp = async (tasks, batch) => {
        batches.push(batch.length);
        for (const object of batch) await tasks.enqueue("load-follow-up", object.sysmeta.identifier, null);
      };
      const objects = Array.from({ length: 5 }, (_, i) => storedObject(`load-follow-${i}`, {}, 20_000 + i));
      assert.equal(await bulkLoadObjects(db, objects, undefined, { batchSize: 2, followUp }), 5);
      assert.deepEqual(batches, [2, 2, 1]);
      const queued = await db.tasks.claim(["load-follow-up"], 10, 60_000);
      assert.deepEqual(
        queued.map((task) => task.key).sort(),
        objects.map((o) => o.sysmeta.identifier),
      );
      for (const task of queued) await db.tasks.complete(task);

      const failing: BatchFollowUp = async (tasks, batch) => {
        for (const object of batch) await tasks.enqueue("load-follow-up", object.sysmeta.identifier, null);
        if (batch.some((object) => object.sysmeta.identifier === "load-fails-3")) throw new Error("boom");
      };
      const doomed = Array.from({ length: 4 }, (_, i) => storedObject(`load-fails-${i}`, {}, 30_000 + i));
      await assert.rejects(
        bulkLoadObjects(db, doomed, undefined, { batchSize: 2, followUp: failing }),
        /boom/,
      );
      assert.equal(
        await db.objects.get("load-fails-0"),
        undefined,
        "the rows went with the failed follow-up",
      );
      assert.deepEqual(await db.tasks.claim(["load-follow-up"], 10, 60_000), []);
    });
  });
});
