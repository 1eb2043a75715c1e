/**
 * Usage metrics counted from the event log on SQLite and PostgreSQL (src/services/usage/count-usage.ts,
 * src/db/usage/): COUNTER's robots, node-to-node reads and non-read events left out, the double-click rule,
 * unique reads per user-session (subject, else IP and user agent, within an hour), requests only for data,
 * months, datasets counted over their metadata and what it documents (a dataset's unique counts once per
 * user-session, whichever of its objects were read), entries harvested from Member Nodes counted as the node's
 * own (a CN's aggregate), each event counted once across passes and batches, late entries included.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { loadFormatRegistry } from "../../../src/context/formats.ts";
import type { Database, NewLogEntry, UsageMonth } from "../../../src/db/types.ts";
import { countUsage } from "../../../src/services/usage/count-usage.ts";
import { datasetReport } from "../../../src/services/usage/dataset-report.ts";
import { answerMetrics, parseMetricsRequest } from "../../../src/services/usage/metacatui-metrics.ts";
import { storedObject } from "../../helpers/data/sysmeta.ts";
import { forEachDialect } from "../../helpers/db/databases.ts";
import { type CountingContext, countEverything } from "../../helpers/db/usage.ts";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0";
const OTHER_BROWSER =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 Version/17.0 Safari/605.1.15";
const CN_SUBJECT = "CN=urn:node:TESTCN,DC=dataone,DC=org";
const EML = "https://eml.ecoinformatics.org/eml-2.2.0";
const ORE = "http://www.openarchives.org/ore/terms";
const formats = loadFormatRegistry();

const at = (month: number, day: number, hour: number, minute: number, second = 0) =>
  new Date(Date.UTC(2025, month - 1, day, hour, minute, second));

function read(pid: string, date: Date, who: Partial<NewLogEntry> = {}): NewLogEntry {
  return {
    identifier: pid,
    event: "read",
    ipAddress: "192.0.2.1",
    userAgent: BROWSER,
    subject: "public",
    dateLogged: date,
    nodeIdentifier: "urn:node:TESTMN",
    ...who,
  };
}

const zero = { totalInvestigations: 0, uniqueInvestigations: 0, totalRequests: 0, uniqueRequests: 0 };
const month = (m: number, counts: Partial<UsageMonth>): UsageMonth => ({ month: m, ...zero, ...counts });
const all = (ti: number, ui: number, tr: number, ur: number) => ({
  totalInvestigations: ti,
  uniqueInvestigations: ui,
  totalRequests: tr,
  uniqueRequests: ur,
});

forEachDialect((name, open) => {
  describe("usage counts", () => {
    let db: Database;
    let ctx: CountingContext;
    const tag = `u${Math.random().toString(36).slice(2, 8)}`;
    const meta = `${tag}-meta`;
    const d1 = `${tag}-d1`;
    const d2 = `${tag}-d2`;
    const map = `${tag}-map`;
    const add = async (entries: NewLogEntry[]) => {
      for (const entry of entries) db.events.append(entry);
      await db.events.flush();
    };

    before(async () => {
      db = await open();
      ctx = { db, formats, config: { cnSubjects: [CN_SUBJECT] } };
      await db.objects.insert(storedObject(meta, { formatId: EML }));
      await db.objects.insert(storedObject(d1, { formatId: "text/csv" }));
      await db.objects.insert(storedObject(d2, { formatId: "text/csv" }));
      await db.objects.insert(storedObject(map, { formatId: ORE }));
      await db.kysely
        .insertInto("search_relations")
        .values([
          { map_pid: map, subject: meta, field: "documents", object: d1 },
          { map_pid: map, subject: meta, field: "documents", object: d2 },
          { map_pid: map, subject: d1, field: "isDocumentedBy", object: meta },
          { map_pid: map, subject: d2, field: "isDocumentedBy", object: meta },
          { map_pid: map, subject: d1, field: "resourceMap", object: map },
        ])
        .execute();
      await add([
        read(d1, at(3, 10, 10, 0, 0)),
        // A double click: the same session within 30 s.
        read(d1, at(3, 10, 10, 0, 20)),
        // Counted again (past 30 s), but not unique (the same session, the same hour).
        read(d1, at(3, 10, 10, 5, 0)),
        // Another session: another address.
        read(d1, at(3, 10, 10, 6, 0), { ipAddress: "192.0.2.2" }),
        // Another hour: another session.
        read(d1, at(3, 10, 11, 1, 0)),
        // Left out: a robot, a node's subject, and events other than reads.
        read(d1, at(3, 10, 12, 0, 0), { userAgent: "Googlebot/2.1 (+http://www.google.com/bot.html)" }),
        read(d1, at(3, 10, 12, 0, 0), { userAgent: "python-requests/2.31.0", ipAddress: "192.0.2.9" }),
        read(d1, at(3, 10, 12, 0, 0), { subject: CN_SUBJECT }),
        read(d1, at(3, 10, 12, 1, 0), { subject: "CN=urn:node:OTHERMN,DC=dataone,DC=org" }),
        read(d1, at(3, 10, 12, 2, 0), { event: "replicate" }),
        read(d1, at(3, 10, 12, 3, 0), { event: "create", ipAddress: "192.0.2.3" }),
        // A known user is one session whatever the address and browser.
        read(meta, at(3, 10, 10, 0, 0), { subject: "CN=alice,O=Test", ipAddress: "198.51.100.1" }),
        read(meta, at(3, 10, 10, 10, 0), {
          subject: "CN=alice,O=Test",
          ipAddress: "198.51.100.2",
          userAgent: OTHER_BROWSER,
        }),
        // April.
        read(d2, at(4, 2, 9, 0, 0)),
      ]);
      // Small batches: the rules must not depend on where one ends.
      await countEverything(ctx, { batchEvents: 2 });
    });

    it("counts a data object's reads as investigations and requests, by the COUNTER rules", async () => {
      assert.deepEqual(await db.usage.objectMonths(d1, 202501, 202512), [month(202503, all(4, 3, 4, 3))]);
      assert.deepEqual(await db.usage.objectMonths(d2, 202501, 202512), [month(202504, all(1, 1, 1, 1))]);
    });

    it("counts a metadata object's reads as investigations only; a known user is one session", async () => {
      assert.deepEqual(await db.usage.objectMonths(meta, 202501, 202512), [month(202503, all(2, 1, 0, 0))]);
    });

    it("counts a dataset over its metadata and what it documents, by month", async () => {
      assert.deepEqual(await db.usage.datasetMonths(meta, 202501, 202512), [
        month(202503, all(6, 4, 4, 3)),
        month(202504, all(1, 1, 1, 1)),
      ]);
      assert.deepEqual(await db.usage.datasetMonths(meta, 202504, 202504), [month(202504, all(1, 1, 1, 1))]);
      assert.deepEqual(await db.usage.datasetMonths(`${tag}-none`, 202501, 202512), []);
    });

    it("a pass stops at its share of events; the next goes on from there", async () => {
      const counted = await db.usage.counted();
      await add([read(d2, at(7, 1, 8, 0, 0)), read(d2, at(7, 1, 9, 0, 0)), read(d2, at(7, 1, 10, 0, 0))]);
      assert.equal(await countUsage(ctx, { batchEvents: 1, maxEvents: 2 }), 2);
      assert.equal(await db.usage.counted(), counted + 2);
      assert.deepEqual(await db.usage.objectMonths(d2, 202507, 202507), [month(202507, all(2, 2, 2, 2))]);
      await countEverything(ctx);
      assert.deepEqual(await db.usage.objectMonths(d2, 202507, 202507), [month(202507, all(3, 3, 3, 3))]);
    });

    it("counts each event once: a pass with nothing new changes nothing", async () => {
      const counted = await db.usage.counted();
      assert.equal(await countUsage(ctx), 0);
      assert.equal(await db.usage.counted(), counted);
      assert.deepEqual(await db.usage.objectMonths(d1, 202501, 202512), [month(202503, all(4, 3, 4, 3))]);
    });

    it("an entry logged late, dated among counted ones, follows the same rules", async () => {
      await add([
        // Within 30 s of the first read of its session and hour: neither total nor unique.
        read(d1, at(3, 10, 10, 0, 10)),
        // A new session in a counted hour.
        read(d1, at(3, 10, 10, 30, 0), { ipAddress: "192.0.2.5" }),
      ]);
      await countEverything(ctx);
      assert.deepEqual(await db.usage.objectMonths(d1, 202501, 202512), [month(202503, all(5, 4, 5, 4))]);
    });

    it("counts entries harvested from Member Nodes as the node's own (a CN's aggregate)", async () => {
      const harvested = (id: string, date: Date, ip: string) => ({
        ...read(d2, date, { ipAddress: ip, nodeIdentifier: "urn:node:OTHERMN" }),
        sourceNode: "urn:node:OTHERMN",
        sourceEntryId: id,
      });
      await db.events.addHarvested([
        harvested("1", at(5, 1, 8, 0, 0), "203.0.113.1"),
        harvested("2", at(5, 1, 8, 0, 5), "203.0.113.1"),
        harvested("3", at(5, 1, 8, 0, 5), "203.0.113.2"),
      ]);
      await countEverything(ctx);
      assert.deepEqual(await db.usage.objectMonths(d2, 202505, 202505), [month(202505, all(2, 2, 2, 2))]);
    });

    it("PostgreSQL: never counts past an event whose transaction is still open", {
      skip: name !== "postgres",
    }, async () => {
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let inserted = () => {};
      const insertedOnce = new Promise<void>((resolve) => {
        inserted = resolve;
      });
      const slow = db.kysely.transaction().execute(async (tx) => {
        await tx
          .insertInto("events")
          .values({
            pid: d2,
            ip: "203.0.113.50",
            user_agent: BROWSER,
            subject: "public",
            event: "read",
            date_logged: at(6, 1, 8, 0, 0).getTime(),
            node_id: "urn:node:TESTMN",
          })
          .execute();
        inserted();
        await held;
      });
      await insertedOnce;
      // A later id, committed at once.
      await add([read(d2, at(6, 1, 9, 0, 0), { ipAddress: "203.0.113.51" })]);
      await countUsage(ctx);
      await countUsage(ctx);
      assert.deepEqual(
        await db.usage.objectMonths(d2, 202506, 202506),
        [],
        "nothing past the open transaction",
      );
      release();
      await slow;
      await countEverything(ctx);
      assert.deepEqual(await db.usage.objectMonths(d2, 202506, 202506), [month(202506, all(2, 2, 2, 2))]);
    });

    it("lists every dataset with usage in a range, and writes the COUNTER R5.1 Dataset Report", async () => {
      const datasets = await db.usage.datasets(202503, 202504, undefined, 100);
      assert.deepEqual(
        datasets.filter((d) => d.dataset === meta),
        [{ dataset: meta, months: [month(202503, all(7, 5, 5, 4)), month(202504, all(1, 1, 1, 1))] }],
      );
      const everything = async (pids: readonly string[]) => new Set(pids);
      const config = { nodeId: "urn:node:TESTMN", nodeName: "Test MN" } as never;
      const report = (await datasetReport(
        { db, formats, config },
        { fromMonth: 202503, toMonth: 202504 },
        everything,
        true,
        new Date("2025-06-01T00:00:00.000Z"),
      )) as { Report_Header: Record<string, unknown>; Report_Items: Record<string, unknown>[] };
      assert.deepEqual(report.Report_Header, {
        Release: "5.1",
        Report_ID: "DSR",
        Report_Name: "Dataset Report",
        Created: "2025-06-01T00:00:00Z",
        Created_By: "Test MN",
        Institution_Name: "The World",
        Report_Attributes: { Attributes_To_Show: ["Access_Method"] },
        Report_Filters: { Begin_Date: "2025-03-01", End_Date: "2025-04-30" },
      });
      const item = report.Report_Items.find((i) => i.Item === meta);
      assert.deepEqual(item, {
        Item: meta,
        Item_ID: { Proprietary: `urn:node:TESTMN:${meta}` },
        Publisher: "Test MN",
        Platform: "urn:node:TESTMN",
        Data_Type: "Dataset",
        Attribute_Performance: [
          {
            Data_Type: "Dataset",
            Access_Method: "Regular",
            Performance: {
              Total_Dataset_Investigations: { "2025-03": 7, "2025-04": 1 },
              Unique_Dataset_Investigations: { "2025-03": 5, "2025-04": 1 },
              Total_Dataset_Requests: { "2025-03": 5, "2025-04": 1 },
              Unique_Dataset_Requests: { "2025-03": 4, "2025-04": 1 },
            },
          },
        ],
      });
      const hidden = (await datasetReport(
        { db, formats, config },
        { fromMonth: 202503, toMonth: 202504 },
        async () => new Set(),
        true,
      )) as { Report_Items: unknown[] };
      assert.deepEqual(hidden.Report_Items, [], "datasets the caller cannot read are not reported");
    });
  });

  describe("usage counts of a dataset", () => {
    let db: Database;
    let ctx: CountingContext;
    const tag = `p${Math.random().toString(36).slice(2, 8)}`;
    const meta = `${tag}-meta`;
    const other = `${tag}-other`;
    const [f1, f2, f3] = [`${tag}-f1`, `${tag}-f2`, `${tag}-f3`];
    const alone = `${tag}-alone`;
    const A = { ipAddress: "192.0.2.10" };
    const B = { ipAddress: "192.0.2.11" };
    const C = { ipAddress: "192.0.2.12" };
    const D = { ipAddress: "192.0.2.13" };
    const add = async (entries: NewLogEntry[]) => {
      for (const entry of entries) db.events.append(entry);
      await db.events.flush();
      // One event a batch: no rule may depend on where a batch ends.
      await countEverything(ctx, { batchEvents: 1 });
    };
    const august = async (pid: string) => db.usage.datasetMonths(pid, 202508, 202508);

    before(async () => {
      db = await open();
      ctx = { db, formats, config: { cnSubjects: [CN_SUBJECT] } };
      await db.objects.insert(storedObject(meta, { formatId: EML }));
      await db.objects.insert(storedObject(other, { formatId: EML }));
      for (const pid of [f1, f2, f3, alone])
        await db.objects.insert(storedObject(pid, { formatId: "text/csv" }));
      const documents = (map: string, metadata: string, data: string) => [
        { map_pid: map, subject: metadata, field: "documents", object: data },
        { map_pid: map, subject: data, field: "isDocumentedBy", object: metadata },
      ];
      await db.kysely
        .insertInto("search_relations")
        .values([
          ...documents(`${tag}-map`, meta, f1),
          ...documents(`${tag}-map`, meta, f2),
          ...documents(`${tag}-map`, meta, f3),
          // f3 is in a second dataset too.
          ...documents(`${tag}-map2`, other, f3),
        ])
        .execute();
    });

    it("a session reading three files of one dataset in one hour: one unique investigation and request, three of each in the totals", async () => {
      await add([
        read(f1, at(8, 1, 14, 0, 0), A),
        read(f2, at(8, 1, 14, 5, 0), A),
        read(f3, at(8, 1, 14, 10, 0), A),
      ]);
      assert.deepEqual(await august(meta), [month(202508, all(3, 1, 3, 1))]);
      for (const pid of [f1, f2, f3])
        assert.deepEqual(await db.usage.objectMonths(pid, 202508, 202508), [month(202508, all(1, 1, 1, 1))]);
    });

    it("another session is another unique one; so is the same address in a new hour", async () => {
      await add([read(f1, at(8, 1, 14, 20, 0), B), read(f2, at(8, 1, 14, 21, 0), B)]);
      assert.deepEqual(await august(meta), [month(202508, all(5, 2, 5, 2))]);
      await add([read(f3, at(8, 1, 15, 1, 0), A)]);
      assert.deepEqual(await august(meta), [month(202508, all(6, 3, 6, 3))]);
    });

    it("the metadata then a file: one unique investigation and one unique request", async () => {
      await add([read(meta, at(8, 1, 14, 30, 0), C), read(f1, at(8, 1, 14, 31, 0), C)]);
      assert.deepEqual(await august(meta), [month(202508, all(8, 4, 7, 4))]);
    });

    it("an object of two datasets counts in each; an object of none in no dataset", async () => {
      assert.deepEqual(await august(other), [month(202508, all(2, 2, 2, 2))]);
      await add([read(alone, at(8, 1, 14, 0, 0), A)]);
      assert.deepEqual(await august(alone), []);
      assert.deepEqual(await db.usage.objectMonths(alone, 202508, 202508), [month(202508, all(1, 1, 1, 1))]);
      assert.deepEqual(await august(meta), [month(202508, all(8, 4, 7, 4))]);
    });

    it("entries logged late, dated among counted ones, are judged against them", async () => {
      await add([
        // A's session had read the dataset in this hour: a total, not unique.
        read(f2, at(8, 1, 14, 2, 0), A),
        // A new session in a counted hour.
        read(f2, at(8, 1, 14, 40, 0), D),
      ]);
      assert.deepEqual(await august(meta), [month(202508, all(10, 5, 9, 5))]);
      // Dated before D's counted read, but logged after it: D's first read of the dataset stays the one counted.
      await add([read(f1, at(8, 1, 14, 39, 0), D)]);
      assert.deepEqual(await august(meta), [month(202508, all(11, 5, 10, 5))]);
    });

    it("serves the dataset's unique counts in the Dataset Report and to MetacatUI", async () => {
      const config = { nodeId: "urn:node:TESTMN", nodeName: "Test MN" } as never;
      const everything = async (pids: readonly string[]) => new Set(pids);
      const report = (await datasetReport(
        { db, formats, config },
        { fromMonth: 202508, toMonth: 202508, dataset: meta },
        everything,
        false,
      )) as { Report_Items: { Attribute_Performance: { Performance: unknown }[] }[] };
      assert.deepEqual(report.Report_Items[0]?.Attribute_Performance[0]?.Performance, {
        Total_Dataset_Investigations: { "2025-08": 11 },
        Unique_Dataset_Investigations: { "2025-08": 5 },
        Total_Dataset_Requests: { "2025-08": 10 },
        Unique_Dataset_Requests: { "2025-08": 5 },
      });
      const range = { filterType: "month", values: ["08/01/2025", "08/31/2025"] };
      const catalog = await answerMetrics(
        db,
        parseMetricsRequest(
          JSON.stringify({ filterBy: [{ filterType: "catalog", values: [meta, other] }, range] }),
        ),
        everything,
      );
      assert.deepEqual(catalog.results.views, [5, 2]);
      assert.deepEqual(catalog.results.downloads, [5, 2]);
      const page = await answerMetrics(
        db,
        parseMetricsRequest(JSON.stringify({ filterBy: [{ filterType: "dataset", values: [meta] }, range] })),
        everything,
      );
      assert.deepEqual(page.results, { months: ["2025-08"], views: [5], downloads: [5], citations: [0] });
    });
  });
});
