/**
 * The unfiltered totals of getLogRecords and listObjects come from the row counts the triggers keep (migration
 * 0015), not from counting the tables: they must stay exact under concurrent writers (two handles on PostgreSQL,
 * as two processes) and across a restart. The truth is a COUNT of each table.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bulkLoadObjects } from "../../src/db/index.ts";
import type { Database, NewLogEntry } from "../../src/db/types.ts";
import { forEachDialect } from "../helpers/databases.ts";
import { storedObject } from "../helpers/sysmeta.ts";

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
  });
});
