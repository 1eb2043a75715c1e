/**
 * Usage metrics through a running node, on SQLite and PostgreSQL: reads of a package by a browser counted, by a
 * robot, a Coordinating Node or a replication left out; the counts served in the shape MetacatUI's metrics
 * panel parses (GET and POST to `metricsUrl`), as a COUNTER R5.1 Dataset Report, and on the landing page; a
 * private dataset's usage shown to no one who cannot read it; a Coordinating Node reporting the usage its
 * Member Nodes logged (log aggregation's harvested entries).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, describe, it } from "node:test";
import type { MetricsAnswer } from "../../../src/services/usage/metacatui-metrics.ts";
import { USAGE_COUNT } from "../../../src/services/usage/tasks.ts";
import { runDueTasks } from "../../../src/tasks/worker.ts";
import { type Caller, create, enc } from "../../helpers/clients/client.ts";
import { RESOURCE_MAP_FORMAT, resourceMapXml } from "../../helpers/data/resource-map.ts";
import { storedObject, uniquePid } from "../../helpers/data/sysmeta.ts";
import { makeDueNow } from "../../helpers/db/task-queue.ts";
import { countEverything } from "../../helpers/db/usage.ts";
import { ADMIN, CN_SUBJECT, testDialects, withTestNode } from "../../helpers/nodes/node.ts";
import { pollUntil } from "../../helpers/time/eventually.ts";

const EML = readFileSync(new URL("../../fixtures/search/eml-2.1.0-peggym.130.4.xml", import.meta.url));
const EML210 = "eml://ecoinformatics.org/eml-2.1.0";
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0";
const ROBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

const thisMonth = () => new Date().toISOString().slice(0, 7);

/** The request MetacatUI's MetricsModel sends for a dataset page. */
function metricsRequest(filterType: string, pids: string[]) {
  const now = new Date();
  const today = `${String(now.getMonth() + 1).padStart(2, "0")}/${String(now.getDate()).padStart(2, "0")}/${now.getFullYear()}`;
  return {
    metricsPage: { total: 0, start: 0, count: 0 },
    metrics: ["citations", "downloads", "views"],
    filterBy: [
      { filterType, values: pids, interpretAs: "list" },
      { filterType: "month", values: ["01/01/2012", today], interpretAs: "range" },
    ],
    groupBy: ["month"],
  };
}

for (const dialect of testDialects()) {
  describe(`usage metrics on a Member Node (${dialect})`, () => {
    const node = withTestNode(dialect);
    const tag = uniquePid("usage").replace(/[^a-z0-9]/gi, "");
    const meta = `${tag}-meta`;
    const data = `${tag}-data`;
    const map = `${tag}-map`;
    const secret = `${tag}-secret`;
    let admin: Caller;
    const get = (path: string, agent: string, token?: string) =>
      fetch(`${node.baseUrl}${path}`, {
        headers: { "User-Agent": agent, ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      });
    const metrics = async (request: unknown, agent = BROWSER) => {
      const response = await get(
        `/usage/metrics?metricsRequest=${encodeURIComponent(JSON.stringify(request))}`,
        agent,
      );
      assert.equal(response.status, 200, await response.clone().text());
      assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
      return (await response.json()) as MetricsAnswer;
    };

    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      const ok = async (response: Promise<Response>) => {
        const r = await response;
        assert.equal(r.status, 200, await r.text());
      };
      await ok(create(admin, meta, EML, { formatId: EML210 }));
      await ok(create(admin, data, Buffer.from("a,b\n1,2\n")));
      await ok(create(admin, secret, EML, { formatId: EML210, readers: [] }));
      await ok(
        create(admin, map, Buffer.from(resourceMapXml(map, meta, [data])), { formatId: RESOURCE_MAP_FORMAT }),
      );
      const { ctx } = node.node;
      await pollUntil(
        async () =>
          (
            await ctx.db.kysely
              .selectFrom("search_relations")
              .select("object")
              .where("subject", "=", meta)
              .where("field", "=", "documents")
              .execute()
          ).length,
        (n) => n === 1,
      );
      const cn = await node.token(CN_SUBJECT);
      const owner = admin.token as string;
      const reads = [
        // A browser: the data twice within seconds (one double click), the landing page once; one user-session,
        // so one unique investigation of the dataset (and one unique request).
        get(`/v2/object/${enc(data)}`, BROWSER),
        get(`/v2/object/${enc(data)}`, BROWSER),
        get(`/v2/views/default/${enc(meta)}`, BROWSER),
        // Left out: a crawler, the CN's reads, a replication.
        get(`/v2/object/${enc(data)}`, ROBOT),
        get(`/v2/object/${enc(meta)}`, BROWSER, cn),
        get(`/v2/replica/${enc(data)}`, BROWSER, cn),
        // The private dataset, read by its owner.
        get(`/v2/object/${enc(secret)}`, BROWSER, owner),
      ];
      for (const read of reads) {
        const response = await read;
        assert.equal(response.status, 200, await response.text());
      }
      await ctx.db.events.flush();
      await countEverything(ctx);
    });

    it("answers MetacatUI's metrics request for a dataset: views and downloads by month, no citations", async () => {
      const request = metricsRequest("dataset", [meta]);
      const answer = await metrics(request);
      assert.deepEqual(answer.metricsRequest, request, "the request comes back as MetacatUI keeps it");
      assert.deepEqual(
        answer.resultDetails,
        { metrics_package_counts: {} },
        "MetacatUI's package table reads its rows' counts from here whenever resultDetails is set",
      );
      assert.deepEqual(answer.results, {
        months: [thisMonth()],
        views: [1],
        downloads: [1],
        citations: [0],
      });
    });

    it("answers the same request sent as a POST body (MetacatUI's useMetricsPost)", async () => {
      const request = metricsRequest("dataset", [meta]);
      const response = await fetch(`${node.baseUrl}/usage/metrics`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded; charset=UTF-8" },
        body: JSON.stringify(request),
      });
      assert.equal(response.status, 200);
      assert.deepEqual(((await response.json()) as MetricsAnswer).results.views, [1]);
    });

    it("answers a page of search results (filterType catalog) per dataset", async () => {
      const answer = await metrics(metricsRequest("catalog", [meta, `${tag}-unknown`]));
      assert.deepEqual(answer.results.datasets, [meta, `${tag}-unknown`]);
      assert.deepEqual(answer.results.views, [1, 0]);
      assert.deepEqual(answer.results.downloads, [1, 0]);
    });

    it("refuses a request that is not one (InvalidRequest)", async () => {
      const response = await get("/usage/metrics?metricsRequest=%7Bnot-json", BROWSER);
      assert.equal(response.status, 400);
      assert.match(await response.text(), /InvalidRequest/);
    });

    it("writes the COUNTER R5.1 Dataset Report for a date range", async () => {
      const month = thisMonth();
      const response = await get(
        `/usage/reports/dsr?begin_date=${month}&end_date=${month}`,
        BROWSER,
        admin.token,
      );
      assert.equal(response.status, 200);
      const report = (await response.json()) as {
        Report_Header: { Release: string; Report_ID: string; Report_Filters: { Begin_Date: string } };
        Report_Items: { Item: string; Attribute_Performance: { Performance: Record<string, unknown> }[] }[];
      };
      assert.equal(report.Report_Header.Release, "5.1");
      assert.equal(report.Report_Header.Report_ID, "DSR");
      assert.equal(report.Report_Header.Report_Filters.Begin_Date, `${month}-01`);
      const item = report.Report_Items.find((i) => i.Item === meta);
      assert.deepEqual(item?.Attribute_Performance[0]?.Performance, {
        Total_Dataset_Investigations: { [month]: 2 },
        Unique_Dataset_Investigations: { [month]: 1 },
        Total_Dataset_Requests: { [month]: 1 },
        Unique_Dataset_Requests: { [month]: 1 },
      });
      const one = await get(
        `/usage/reports/dsr?begin_date=${month}&end_date=${month}&dataset=${enc(meta)}`,
        BROWSER,
      );
      assert.deepEqual(
        ((await one.json()) as { Report_Items: { Item: string }[] }).Report_Items.map((i) => i.Item),
        [meta],
      );
      const anyone = await get(`/usage/reports/dsr?begin_date=${month}&end_date=${month}`, BROWSER);
      assert.equal(anyone.status, 403, "every dataset's report is for administrators");
      assert.equal(((await anyone.json()) as { Code: number }).Code, 2000);
      const bad = await get("/usage/reports/dsr?begin_date=2025-13&end_date=2025-01&dataset=x", BROWSER);
      assert.equal(bad.status, 400);
      assert.deepEqual(await bad.json(), {
        Code: 3020,
        Severity: "Error",
        Message: "Invalid Date Arguments",
        Data: "begin_date must be YYYY-MM or YYYY-MM-DD",
      });
    });

    it("shows the dataset's views and downloads on its landing page", async () => {
      const page = await (await get(`/v2/views/default/${enc(meta)}`, BROWSER)).text();
      assert.match(page, /<p class="usage">1 view · 1 download<\/p>/);
    });

    it("tells no one without read access of a private dataset's usage", async () => {
      const month = thisMonth();
      const answer = await metrics(metricsRequest("dataset", [secret]));
      assert.deepEqual(answer.results.views, []);
      const report = await get(
        `/usage/reports/dsr?begin_date=${month}&end_date=${month}&dataset=${enc(secret)}`,
        BROWSER,
      );
      assert.deepEqual(((await report.json()) as { Report_Items: unknown[] }).Report_Items, []);
      const asOwner = await get(
        `/usage/reports/dsr?begin_date=${month}&end_date=${month}&dataset=${enc(secret)}`,
        BROWSER,
        admin.token,
      );
      assert.equal(((await asOwner.json()) as { Report_Items: unknown[] }).Report_Items.length, 1);
    });
  });

  describe(`the usage-count task (${dialect})`, () => {
    const node = withTestNode(dialect, {}, { logLevel: false, worker: false });

    it("is queued at start and after each pass, and counts what the log gained", async () => {
      const { ctx } = node.node;
      const admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      const pid = uniquePid("usage-task");
      assert.equal((await create(admin, pid, Buffer.from("x,y\n"))).status, 200);
      const response = await fetch(`${node.baseUrl}/v2/object/${enc(pid)}`, {
        headers: { "User-Agent": BROWSER },
      });
      assert.equal(response.status, 200);
      await response.arrayBuffer();
      await ctx.db.events.flush();
      assert.equal((await ctx.tasks.pending())[USAGE_COUNT], 1, "queued when the node started");
      const run = () =>
        runDueTasks({ ...ctx, taskHandlers: { [USAGE_COUNT]: ctx.taskHandlers[USAGE_COUNT] as never } });
      await run();
      const month = Number(thisMonth().replace("-", ""));
      // PostgreSQL counts up to what a previous pass saw, once its transactions have ended: later passes reach it.
      const months = await pollUntil(
        async () => {
          await makeDueNow(ctx.db, USAGE_COUNT);
          await run();
          return ctx.db.usage.objectMonths(pid, month, month);
        },
        (found) => found.length > 0,
        30_000,
      );
      assert.equal(months[0]?.uniqueRequests, 1);
      assert.equal((await ctx.tasks.pending())[USAGE_COUNT], 1, "the next pass is queued");
    });
  });

  describe(`usage metrics on a Coordinating Node (${dialect})`, () => {
    const node = withTestNode(dialect, { role: "cn", nodeId: "urn:node:TESTCN" });
    const tag = uniquePid("cnusage").replace(/[^a-z0-9]/gi, "");
    const meta = `${tag}-meta`;
    const data = `${tag}-data`;

    before(async () => {
      const { db } = node.node.ctx;
      // What harvesting brought: the objects' system metadata, the package's relations, the Member Nodes' logs.
      await db.objects.insert({ ...storedObject(meta, { formatId: EML210 }), contentKey: "" });
      await db.objects.insert({ ...storedObject(data, { formatId: "text/csv" }), contentKey: "" });
      await db.kysely
        .insertInto("search_relations")
        .values({ map_pid: `${tag}-map`, subject: meta, field: "documents", object: data })
        .execute();
      const now = Date.now();
      const entry = (id: string, sourceNode: string, pid: string, ip: string, agent = BROWSER) => ({
        identifier: pid,
        event: "read",
        ipAddress: ip,
        userAgent: agent,
        subject: "public",
        dateLogged: new Date(now - 60_000),
        nodeIdentifier: sourceNode,
        sourceNode,
        sourceEntryId: id,
      });
      await db.events.addHarvested([
        entry("1", "urn:node:MN1", data, "192.0.2.10"),
        entry("2", "urn:node:MN1", meta, "192.0.2.10"),
        entry("3", "urn:node:MN2", data, "192.0.2.11"),
        entry("4", "urn:node:MN2", data, "192.0.2.12", ROBOT),
      ]);
      await countEverything(node.node.ctx);
    });

    it("reports the usage its Member Nodes logged, from the aggregated log", async () => {
      const month = thisMonth();
      const response = await fetch(
        `${node.baseUrl}/usage/reports/dsr?begin_date=${month}&end_date=${month}&dataset=${enc(meta)}`,
      );
      assert.equal(response.status, 200);
      const report = (await response.json()) as {
        Report_Items: { Attribute_Performance: { Performance: Record<string, unknown> }[] }[];
      };
      assert.deepEqual(report.Report_Items[0]?.Attribute_Performance[0]?.Performance, {
        Total_Dataset_Investigations: { [month]: 3 },
        // 192.0.2.10 read the data and the metadata: one user-session, one unique investigation.
        Unique_Dataset_Investigations: { [month]: 2 },
        Total_Dataset_Requests: { [month]: 2 },
        Unique_Dataset_Requests: { [month]: 2 },
      });
    });
  });
}
