/**
 * Log aggregation on SQLite and PostgreSQL: a Member Node's log (a fake node answering getLogRecords as the API
 * text pages it) is read into the CN's event log once, with the node's identifier, however often it runs.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { CallInfo, NodeContext } from "../../../src/context/node-context.ts";
import type { Database } from "../../../src/db/types.ts";
import { harvestNodeLog, type LogSource } from "../../../src/federation/logs/harvest-node.ts";
import { getLogRecords } from "../../../src/services/cn/log.ts";
import { serializeLog } from "../../../src/types/index.ts";
import type { LogEntry } from "../../../src/types/xml-documents/lists-xml.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { contextOver } from "../../helpers/nodes/federation-context.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";

const MN = "urn:node:LOGMN";
const at = (ms: number) => new Date(Date.UTC(2026, 2, 1) + ms);

function mnEntry(id: number, ms: number, pid = `log_obj_${id % 3}`, event = "read"): LogEntry {
  return {
    entryId: String(id),
    identifier: pid,
    ipAddress: "192.0.2.7",
    userAgent: "curl/8",
    subject: "CN=reader",
    event,
    dateLogged: at(ms),
    nodeIdentifier: MN,
  };
}

/** A Member Node's log as MNCore.getLogRecords pages it: fromDate (>=), toDate (<), start, count; by (dateLogged, id). */
function fakeNode(entries: LogEntry[]): LogSource & { requests: number } {
  const node = {
    requests: 0,
    async getLogRecords({
      fromDate,
      toDate,
      start = 0,
      count = 1000,
    }: {
      fromDate?: Date;
      toDate?: Date;
      start?: number;
      count?: number;
    }) {
      node.requests += 1;
      const window = entries
        .filter((e) => (!fromDate || e.dateLogged >= fromDate) && (!toDate || e.dateLogged < toDate))
        .sort(
          (a, b) => a.dateLogged.getTime() - b.dateLogged.getTime() || Number(a.entryId) - Number(b.entryId),
        );
      return { start, total: window.length, items: window.slice(start, start + count) };
    },
  };
  return node;
}

function caller(subject: string, flags: { isCn?: boolean; isAdmin?: boolean } = {}): CallInfo {
  return {
    session: {
      subject,
      subjects: new Set([subject, "public"]),
      authenticated: true,
      isCn: false,
      isAdmin: false,
      ...flags,
    },
    ipAddress: "127.0.0.1",
    userAgent: "test",
  };
}
const CN_CALL = caller("CN=urn:node:TESTCN", { isCn: true });

forEachDialect((_name, open) => {
  describe("log aggregation", () => {
    let db: Database;
    let ctx: NodeContext;
    before(async () => {
      db = await open();
      ctx = await contextOver(db);
      for (const pid of ["log_obj_0", "log_obj_1", "log_obj_2"]) {
        await db.objects.insert(storedObject(pid, pid === "log_obj_2" ? { accessPolicy: [] } : {}));
      }
    });

    it("stores each entry once, with the node's identifier, over two runs and pages tied on one date", async () => {
      // 25 entries, several sharing a millisecond, so pages of 4 end inside a run of equal dates.
      const entries = Array.from({ length: 25 }, (_, i) => mnEntry(i + 1, Math.floor(i / 3) * 1000));
      const node = fakeNode(entries);
      const first = await harvestNodeLog(ctx, MN, node, { pageSize: 4 });
      assert.deepEqual({ added: first.added, complete: first.complete }, { added: 25, complete: true });
      const second = await harvestNodeLog(ctx, MN, node, { pageSize: 4 });
      assert.equal(second.added, 0);
      const log = await getLogRecords(ctx, CN_CALL, {}, 0, 100);
      assert.equal(log.total, 25);
      assert.ok(log.items.every((e) => e.nodeIdentifier === MN));
      assert.deepEqual(
        log.items.map((e) => e.dateLogged.getTime()),
        entries.map((e) => e.dateLogged.getTime()),
      );
      const progress = await ctx.db.logProgress.read(MN);
      assert.equal(progress?.harvestedTo.getTime(), at(8000).getTime());
      assert.equal(progress?.entries, 25);
    });

    it("takes new entries on the next run, and late ones within the overlap", async () => {
      const entries = Array.from({ length: 25 }, (_, i) => mnEntry(i + 1, Math.floor(i / 3) * 1000));
      entries.push(mnEntry(26, 9000, "log_obj_1", "create"), mnEntry(27, 7500, "log_obj_0", "update"));
      const outcome = await harvestNodeLog(ctx, MN, fakeNode(entries), { pageSize: 4 });
      assert.equal(outcome.added, 2);
      const creates = await getLogRecords(ctx, CN_CALL, { event: "create" }, 0, 10);
      assert.deepEqual(
        creates.items.map((e) => [e.identifier, e.nodeIdentifier]),
        [["log_obj_1", MN]],
      );
      const window = await getLogRecords(ctx, CN_CALL, { fromDate: at(7000), toDate: at(9000) }, 0, 10);
      assert.equal(window.total, 5); // three at 7 s, the late one at 7.5 s, one at 8 s
      const prefixed = await getLogRecords(ctx, CN_CALL, { idFilter: "log_obj_0" }, 0, 100);
      assert.ok(prefixed.items.every((e) => e.identifier === "log_obj_0"));
      const paged = await getLogRecords(ctx, CN_CALL, {}, 20, 5);
      assert.deepEqual(
        { start: paged.start, total: paged.total, count: paged.items.length },
        {
          start: 20,
          total: 27,
          count: 5,
        },
      );
    });

    it("reads a run as one window paged by position, so that the node counts it once", async () => {
      const node5 = "urn:node:LOGMN5";
      const entries = Array.from({ length: 20 }, (_, i) => ({
        ...mnEntry(i + 1, i * 1000),
        nodeIdentifier: node5,
      }));
      const node = fakeNode(entries);
      const asked: string[] = [];
      const source: LogSource = {
        getLogRecords(window) {
          asked.push(`${window.fromDate?.toISOString() ?? "-"} ${window.start}`);
          return node.getLogRecords(window);
        },
      };
      assert.equal((await harvestNodeLog(ctx, node5, source, { pageSize: 6 })).added, 20);
      assert.deepEqual(asked, ["- 0", "- 6", "- 12", "- 18"]);
      entries.push({ ...mnEntry(21, 30_000), nodeIdentifier: node5 });
      asked.length = 0;
      assert.equal((await harvestNodeLog(ctx, node5, source, { pageSize: 6, overlapMs: 0 })).added, 1);
      const from = at(19_000).toISOString();
      // The rest of the requests are the check of older entries (reconcile.ts).
      assert.equal(asked[0], `${from} 0`);
    });

    it("stops at maxPages and continues where it stopped", async () => {
      const other = "urn:node:LOGMN2";
      const entries = Array.from({ length: 10 }, (_, i) => ({ ...mnEntry(i + 1, i), nodeIdentifier: other }));
      const node = fakeNode(entries);
      const first = await harvestNodeLog(ctx, other, node, { pageSize: 3, maxPages: 2 });
      assert.deepEqual(first, { added: 6, pages: 2, complete: false });
      const rest = await harvestNodeLog(ctx, other, node, { pageSize: 3 });
      assert.equal(rest.added, 4);
      assert.ok(rest.complete);
      const fromOther = (await getLogRecords(ctx, CN_CALL, {}, 0, 1000)).items.filter(
        (e) => e.nodeIdentifier === other,
      );
      assert.equal(fromOther.length, 10);
    });

    it("fetches, once, an entry the node writes later dated before the overlap window", async () => {
      const late = "urn:node:LOGMN3";
      const minute = 60_000;
      const entries = Array.from({ length: 30 }, (_, i) => ({
        ...mnEntry(i + 1, i * minute),
        nodeIdentifier: late,
      }));
      const node = fakeNode(entries);
      assert.equal((await harvestNodeLog(ctx, late, node, { pageSize: 4 })).added, 30);
      // Written after that run, dated 23.5 minutes before the newest entry (the overlap is 10 minutes).
      entries.push({ ...mnEntry(31, 5.5 * minute, "log_obj_1", "update"), nodeIdentifier: late });
      const second = await harvestNodeLog(ctx, late, node, { pageSize: 4 });
      assert.deepEqual({ added: second.added, complete: second.complete }, { added: 1, complete: true });
      const third = await harvestNodeLog(ctx, late, node, { pageSize: 4 });
      assert.equal(third.added, 0);
      // Nothing missing: the forward window (entries from 19 minutes on, 3 pages of 4) and one count request.
      assert.equal(third.pages, 4);
      const fromLate = (await getLogRecords(ctx, CN_CALL, { event: "update" }, 0, 1000)).items.filter(
        (e) => e.nodeIdentifier === late,
      );
      assert.deepEqual(
        fromLate.map((e) => [e.identifier, e.dateLogged.getTime()]),
        [["log_obj_1", at(5.5 * minute).getTime()]],
      );
    });

    it("finds many late entries over several budget-limited runs, each stored once", async () => {
      const node4 = "urn:node:LOGMN4";
      const minute = 60_000;
      const entries = Array.from({ length: 200 }, (_, i) => ({
        ...mnEntry(1000 + i, i * minute),
        nodeIdentifier: node4,
      }));
      const node = fakeNode(entries);
      assert.equal((await harvestNodeLog(ctx, node4, node, { pageSize: 4 })).added, 200);
      const late = [7, 41, 90, 133, 170].map((m, i) => ({
        ...mnEntry(2000 + i, m * minute + 30_000, "log_obj_0", "delete"),
        nodeIdentifier: node4,
      }));
      entries.push(...late);
      let added = 0;
      const runs: boolean[] = [];
      for (let run = 0; run < 20 && !runs.at(-1); run++) {
        const outcome = await harvestNodeLog(ctx, node4, node, { pageSize: 4, maxPages: 25 });
        assert.equal(outcome.complete, true, "the node's newest entries are in after every run");
        added += outcome.added;
        runs.push(outcome.olderChecked ?? false);
      }
      assert.equal(runs[0], false, "one run's budget does not cover the five");
      assert.equal(runs.at(-1), true);
      assert.equal(added, 5);
      const deletes = (await getLogRecords(ctx, CN_CALL, { event: "delete" }, 0, 1000)).items.filter(
        (e) => e.nodeIdentifier === node4,
      );
      assert.deepEqual(
        deletes.map((e) => e.dateLogged.getTime()),
        late.map((e) => e.dateLogged.getTime()),
      );
    });

    it("answers others an empty log, or with logReaders=readers the records of what they may read", async () => {
      const anyone = caller("CN=reader");
      assert.deepEqual(await getLogRecords(ctx, anyone, {}, 0, 10), { start: 0, total: 0, items: [] });
      const open = { ...ctx, config: { ...ctx.config, logReaders: "readers" as const } };
      const readable = await getLogRecords(open, anyone, {}, 0, 1000);
      assert.ok(readable.total > 0);
      assert.ok(readable.items.every((e) => e.identifier !== "log_obj_2"));
    });

    it("serialises the aggregated log valid against the v1 and v2 schemas", async () => {
      const page = await getLogRecords(ctx, CN_CALL, {}, 0, 1000);
      await validateXml(serializeLog(page, "v2"));
      await validateXml(serializeLog(page, "v1"));
    });
  });
});
