/**
 * Date windows of the log and the object list are paged as stretches of their parent lists (KeysetSource.slice):
 * their totals and pages must be the spec's exactly, before and after the parents were walked, and after entries
 * and objects land inside, before and after a window or are removed. The truth is computed here from every row.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { bulkLoadObjects } from "../../../src/db/index.ts";
import type {
  Database,
  HarvestedLogEntry,
  LogFilter,
  NewLogEntry,
  ObjectListFilter,
} from "../../../src/db/types.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";

const ENTRIES = 4200;
const OBJECTS = 3300;
const FIRST = Date.UTC(2026, 0, 1);
const at = (second: number) => new Date(FIRST + second * 1000);

function entry(i: number, event = i % 3 === 0 ? "create" : "read"): NewLogEntry {
  return {
    identifier: `s-${i % 50}`,
    event,
    ipAddress: "127.0.0.1",
    userAgent: "test",
    subject: "CN=s",
    // Two entries a second: windows cut between entries of one date too.
    dateLogged: at(Math.floor(i / 2)),
    nodeIdentifier: "urn:node:TEST",
  };
}

function harvested(tag: string, second: number): HarvestedLogEntry[] {
  return [0, 1, 2].map((k) => ({
    ...entry(second * 2 + k),
    sourceNode: "urn:node:OTHER",
    sourceEntryId: `${tag}-${k}`,
  }));
}

const LOG_WINDOWS: LogFilter[] = [
  { fromDate: at(0), toDate: at(1) },
  { fromDate: at(100), toDate: at(1700) },
  { fromDate: at(999) },
  { toDate: at(1501) },
  { fromDate: at(1500), toDate: at(1500) },
  { fromDate: at(2000), toDate: at(99_999) },
  { fromDate: at(250), toDate: at(1900), event: "create" },
];
const OBJECT_WINDOWS: ObjectListFilter[] = [
  { fromDate: at(0), toDate: at(2) },
  { fromDate: at(700), toDate: at(2800) },
  { fromDate: at(1200) },
  { toDate: at(1999) },
  { fromDate: at(900), toDate: at(3100), readableBy: ["public"] },
];

async function assertLogWindows(db: Database, starts: number[]): Promise<void> {
  const everything = (await db.events.list({ idFilter: "s-" }, 0, 100_000)).items;
  for (const filter of LOG_WINDOWS) {
    const truth = everything.filter(
      (e) =>
        (!filter.fromDate || e.dateLogged >= filter.fromDate) &&
        (!filter.toDate || e.dateLogged < filter.toDate) &&
        (!filter.event || e.event === filter.event),
    );
    for (const start of starts) {
      const page = await db.events.list(filter, start, 5);
      assert.equal(page.total, truth.length, `log total ${JSON.stringify(filter)}`);
      assert.deepEqual(
        page.items,
        truth.slice(start, start + 5),
        `log ${JSON.stringify(filter)} at ${start}`,
      );
    }
  }
}

async function assertObjectWindows(db: Database, starts: number[]): Promise<void> {
  const everything = (await db.objects.list({ replicaStatus: false }, 0, 100_000)).items;
  const readable = new Set(
    (await db.objects.list({ readableBy: ["public"], replicaStatus: false }, 0, 100_000)).items.map(
      (o) => o.identifier,
    ),
  );
  for (const filter of OBJECT_WINDOWS) {
    const truth = everything.filter(
      (o) =>
        (!filter.fromDate || o.dateSysMetadataModified >= filter.fromDate) &&
        (!filter.toDate || o.dateSysMetadataModified < filter.toDate) &&
        (!filter.readableBy || readable.has(o.identifier)),
    );
    for (const start of starts) {
      const page = await db.objects.list(filter, start, 5);
      assert.equal(page.total, truth.length, `object total ${JSON.stringify(filter)}`);
      assert.deepEqual(
        page.items,
        truth.slice(start, start + 5),
        `objects ${JSON.stringify(filter)} at ${start}`,
      );
    }
  }
}

forEachDialect((_name, open) => {
  describe("date windows as stretches of their lists", () => {
    let db: Database;
    before(async () => {
      db = await open();
      for (let i = 0; i < ENTRIES; i++) db.events.append(entry(i));
      await db.events.flush();
      const objects = Array.from({ length: OBJECTS }, (_, i) =>
        storedObject(`s-${i}`, i % 4 === 0 ? { accessPolicy: [] } : {}, i * 1000),
      );
      await bulkLoadObjects(db, objects);
    });

    it("gives the spec's totals and pages, cold and after the walk", async () => {
      await assertLogWindows(db, [0, 1, 998, 1000, 1999, 3500]);
      await assertObjectWindows(db, [0, 3, 999, 1001, 2000]);
      await db.warmLists(new AbortController().signal, 0);
      await db.events.list({ event: "create" }, 1400, 1);
      await assertLogWindows(db, [0, 2, 1000, 1001, 2999, 4000]);
      await assertObjectWindows(db, [0, 999, 1000, 2500]);
    });

    it("stays exact after entries and objects land inside and around the windows, and objects go", async () => {
      await db.warmLists(new AbortController().signal, 0);
      await db.events.addHarvested(harvested("inside", 500));
      await db.events.addHarvested(harvested("edge", 1500));
      db.events.append(entry(ENTRIES + 10));
      await db.events.flush();
      await db.objects.insert(storedObject("s-early", {}, -5000));
      await db.objects.insert(storedObject("s-inside", {}, 1_500_500));
      await db.objects.remove("s-1000");
      await db.objects.remove("s-2999");
      await assertLogWindows(db, [0, 1, 999, 1000, 1003, 2500, 4001]);
      await assertObjectWindows(db, [0, 1, 999, 1000, 1001, 2200]);
    });
  });
});
