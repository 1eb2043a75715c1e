/**
 * The unfiltered totals of getLogRecords and listObjects come from the row counts the triggers keep (migration
 * 0015), not from counting the tables: they must stay exact under concurrent writers (two handles on PostgreSQL,
 * as two processes) and across a restart. The truth is a COUNT of each table.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sql } from "kysely";
import { bulkLoadObjects } from "../../../src/db/index.ts";
import type { Database, NewLogEntry } from "../../../src/db/types.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

function entry(identifier: string, i: number): NewLogEntry {
  return {
    identifier,
    event: "read",
    ipAddress: "127.0.0.1",
    userAgent: "test",
    subject: "CN=s",
    dateLogged: new Date(Date.UTC(2026, 0, 1) + i * 1000),
    nodeIdentifier: "urn:node:TEST",
  };
}

/** The unfiltered totals, read by a handle that remembers nothing yet, and the counted truth. */
async function totals(db: Database) {
  return {
    events: (await db.events.list({}, 0, 1)).total,
    objects: (await db.objects.list({}, 0, 1)).total,
    countedEvents: await counted(db, "events"),
    countedObjects: await counted(db, "objects"),
  };
}

async function counted(db: Database, table: "events" | "objects"): Promise<number> {
  const row = await db.kysely
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Objects, log entries (batched, harvested, in a write's transaction) and deletions, all at once. */
async function writeConcurrently(db: Database, tag: string): Promise<void> {
  const work: Promise<unknown>[] = [];
  for (let i = 0; i < 120; i++) {
    const pid = `${tag}-${i}`;
    work.push(
      db.objects.insert(storedObject(pid)).then(async () => {
        if (i % 3 === 0) await db.objects.remove(pid);
      }),
    );
    db.events.append(entry(pid, i));
    if (i % 10 === 0) {
      const harvested = [0, 1, 2].map((k) => ({
        ...entry(pid, i + k),
        sourceNode: "urn:node:OTHER",
        // Each entry twice: the second is a duplicate the log ignores, and must not count.
        sourceEntryId: `${tag}-${i}-${k % 2}`,
      }));
      work.push(db.events.addHarvested(harvested));
    }
    if (i % 7 === 0) {
      work.push(
        db.transaction(async (tx) => {
          await tx.objects.insert(storedObject(`${pid}-tx`));
          await tx.events.add(entry(`${pid}-tx`, i));
        }),
      );
    }
  }
  work.push(db.events.flush());
  await Promise.all(work);
  await db.events.flush();
}

forEachDialect((name, open) => {
  describe("row counts", () => {
    it("keep the unfiltered totals exact under concurrent writers and across a restart", async () => {
      const first = await open();
      // PostgreSQL: a second handle on the same database, as a second process; SQLite has one writer.
      const second = name === "postgres" ? await open(first) : first;
      await Promise.all([writeConcurrently(first, "a"), writeConcurrently(second, "b")]);

      const fresh = name === "postgres" ? await open(first) : first;
      const seen = await totals(fresh);
      assert.equal(seen.events, seen.countedEvents);
      assert.equal(seen.objects, seen.countedObjects);
      // 2 x (120 objects, 80 kept, and 18 more with their entries); entries: 120 + 12 x 2 harvested + 18.
      assert.equal(seen.objects, 2 * (80 + 18));
      assert.equal(seen.events, 2 * (120 + 24 + 18));

      await first.close();
      if (second !== first) await second.close();
      if (fresh !== first) await fresh.close();
      const restarted = await open(first);
      const after = await totals(restarted);
      assert.deepEqual(after, seen);

      // A bulk load adds its count once (SQLite: without the per-row trigger). Deltas folded by readers
      // (PostgreSQL) keep the sum: many small writes, then more readers.
      await bulkLoadObjects(restarted, [storedObject("bulk-1", {}, 1), storedObject("bulk-2", {}, 2)]);
      for (let i = 0; i < 250; i++) await restarted.objects.insert(storedObject(`c-${i}`));
      await restarted.objects.remove("c-0");
      const other = name === "postgres" ? await open(first) : restarted;
      await Promise.all([totals(other), totals(other)]);
      const folded = await totals(other);
      assert.equal(folded.objects, seen.objects + 2 + 249);
      assert.equal(folded.objects, folded.countedObjects);
      assert.equal(folded.events, folded.countedEvents);
    });

    it("count every writer of the log: batches beside a write's transaction, harvests with duplicates", async () => {
      const db = await open();
      // SQLite: a batch flushed while a write's transaction holds the handle goes through the query builder,
      // one flushed outside on the handle itself; both count their rows (migration 0017, no row trigger).
      let flushing: Promise<void> = Promise.resolve();
      await db.transaction(async (tx) => {
        for (let i = 0; i < 7; i++) db.events.append(entry("during", i));
        flushing = db.events.flush();
        await tx.events.add(entry("in-tx", 0));
      });
      await flushing;
      for (let i = 0; i < 60; i++) db.events.append(entry("after", i));
      await db.events.flush();
      const harvested = [0, 0, 1].map((k) => ({
        ...entry("h", k),
        sourceNode: "urn:node:O",
        sourceEntryId: `e${k}`,
      }));
      assert.equal(await db.events.addHarvested(harvested), 2);
      assert.equal(await db.events.addHarvested(harvested), 0);
      const seen = await totals(db);
      assert.equal(seen.countedEvents, 7 + 1 + 60 + 2);
      assert.equal(seen.events, seen.countedEvents);
      if (name === "sqlite") {
        const triggers = await sql<{ name: string }>`select name from sqlite_master where type = 'trigger'
          and tbl_name = 'events'`.execute(db.kysely);
        assert.deepEqual(
          triggers.rows.map((row) => row.name),
          ["events_counted_delete"],
        );
      }
    });
  });
});
