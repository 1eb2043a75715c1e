/**
 * GET {basePath}/metrics: the Prometheus text format, read back with a Prometheus text-format parser, with the
 * counters and gauges moved by real requests; and who may read it (the metrics setting), on both databases.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import parsePrometheusTextFormat, { type ParsedFamily } from "parse-prometheus-text-format";
import { type Caller, call, create, enc, errorOf } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

async function scrape(node: TestNode, token?: string): Promise<ParsedFamily[] & { text: string }> {
  const response = await fetch(`${node.baseUrl}/metrics`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  return Object.assign(parsePrometheusTextFormat(text), { text });
}

function value(
  families: ParsedFamily[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const family = families.find((f) => f.name === name);
  const sample = family?.metrics.find((m) =>
    Object.entries(labels).every(([key, wanted]) => m.labels?.[key] === wanted),
  );
  if (!sample) return undefined;
  return Number(sample.value ?? sample.count);
}

for (const dialect of testDialects()) {
  describe(`metrics (${dialect})`, () => {
    const node = withTestNode(dialect);
    let admin: Caller;
    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
    });

    it("counts requests, bytes and what is stored as real requests are served", async () => {
      const before = await scrape(node, admin.token);
      assert.equal(value(before, "d1node_info", { node_id: "urn:node:TESTMN", role: "mn" }), 1);
      assert.equal(value(before, "d1node_objects", { copy: "own" }), 0);
      const bytes = Buffer.from("depth,temp\n1,12.5\n2,11.0\n");
      const pid = uniquePid("metrics");
      assert.equal((await create(admin, pid, bytes)).status, 200);
      const read = await call(admin, "GET", `/object/${enc(pid)}`);
      assert.equal(read.status, 200);
      assert.deepEqual(Buffer.from(await read.arrayBuffer()), bytes);
      assert.equal((await call(admin, "GET", `/meta/${enc("no-such-object")}`)).status, 404);

      const after = await scrape(node, admin.token);
      assert.equal(
        value(after, "d1node_http_requests_total", { method: "MNStorage.create", status: "200" }),
        1,
      );
      assert.equal(value(after, "d1node_http_requests_total", { method: "MNRead.get", status: "200" }), 1);
      assert.equal(
        value(after, "d1node_http_requests_total", { method: "MNRead.getSystemMetadata", status: "404" }),
        1,
      );
      // The first scrape is counted too, once answered.
      assert.equal(
        value(after, "d1node_http_requests_total", { method: "d1node.metrics", status: "200" }),
        1,
      );
      const sent = value(after, "d1node_http_sent_bytes_total", { method: "MNRead.get" }) ?? 0;
      assert.ok(sent >= bytes.length, `sent ${sent} bytes for MNRead.get`);
      const received = value(after, "d1node_http_received_bytes_total", { method: "MNStorage.create" }) ?? 0;
      assert.ok(received > bytes.length, `received ${received} bytes for MNStorage.create`);
      const latency = after.find((f) => f.name === "d1node_http_request_duration_seconds");
      assert.equal(latency?.type, "HISTOGRAM");
      // The parser keeps a histogram's buckets but not its labels: the per-method count is read from its line.
      assert.match(after.text, /^d1node_http_request_duration_seconds_count\{method="MNRead\.get"\} 1$/m);
      // The counts are cached for a few seconds: a scrape does not query the database each time.
      assert.equal(value(after, "d1node_objects", { copy: "own" }), 0);
    });

    it("reads the stored objects, the task queue and the index lag from the database", async () => {
      const fresh = await startTestNode(dialect);
      try {
        const caller = { baseUrl: fresh.baseUrl, token: await fresh.token(ADMIN) };
        const bytes = Buffer.from("a,b\n1,2\n");
        assert.equal((await create(caller, uniquePid("metrics"), bytes)).status, 200);
        assert.equal((await create(caller, uniquePid("metrics"), bytes)).status, 200);
        await fresh.node.ctx.tasks.enqueue(
          "metrics-test",
          "one",
          {},
          { runAt: new Date(Date.now() + 3_600_000) },
        );
        const families = await scrape(fresh, caller.token);
        assert.equal(value(families, "d1node_objects", { copy: "own" }), 2);
        assert.equal(value(families, "d1node_object_bytes", { copy: "own" }), 2 * bytes.length);
        assert.equal(value(families, "d1node_objects", { copy: "replica" }), 0);
        // Due in an hour: scheduled, not ready (queue depth counts what is due now).
        assert.equal(value(families, "d1node_tasks", { kind: "metrics-test", state: "scheduled" }), 1);
        assert.equal(value(families, "d1node_index_lag_objects"), 0);
        assert.equal(value(families, "d1node_uploads_open"), 0);
        assert.equal(value(families, "d1node_uploads_received_bytes"), 0);
        // The search engine's memory, against its default budget.
        assert.equal(value(families, "d1node_search_engine_mode", { mode: "memory" }), 1);
        assert.equal(value(families, "d1node_search_memory_bytes", { kind: "budget" }), 2 ** 30);
      } finally {
        await fresh.close();
      }
    });

    it("serves only administrators by default: anyone else gets NotAuthorized", async () => {
      const anonymous = await fetch(`${node.baseUrl}/metrics`);
      const error = await errorOf(anonymous);
      assert.equal(error.status, 401);
      assert.equal(error.name, "NotAuthorized");
      const user = await fetch(`${node.baseUrl}/metrics`, {
        headers: { authorization: `Bearer ${await node.token("CN=Someone,O=Example")}` },
      });
      assert.equal(user.status, 401);
    });
  });
}

describe("metrics settings", () => {
  it("public: anyone may scrape; off: the path is not served (NotImplemented)", async () => {
    const open = await startTestNode("sqlite", { metrics: "public", statusPage: "off" });
    const closed = await startTestNode("sqlite", { metrics: "off" });
    try {
      const families = await scrape(open);
      assert.ok(families.some((f) => f.name === "process_cpu_seconds_total"));
      const status = await errorOf(await fetch(`${open.baseUrl}/status`));
      assert.equal(status.name, "NotImplemented");
      const off = await errorOf(await fetch(`${closed.baseUrl}/metrics`));
      assert.equal(off.status, 501);
      assert.equal(off.name, "NotImplemented");
    } finally {
      await open.close();
      await closed.close();
    }
  });

  it("a Coordinating Node serves its metrics and status page under its base path, with harvest and replicas", async () => {
    const cn = await startTestNode("sqlite", { role: "cn", metrics: "public", statusPage: "public" });
    try {
      assert.match(cn.baseUrl, /\/cn$/);
      await cn.node.ctx.db.harvestProgress.save("urn:node:MN1", {
        harvestedTo: new Date(Date.now() - 120_000),
        window: undefined,
        listParams: "window",
      });
      const families = await scrape(cn);
      assert.equal(value(families, "d1node_info", { role: "cn" }), 1);
      const lag = value(families, "d1node_harvest_lag_seconds", { node: "urn:node:MN1" }) ?? 0;
      assert.ok(lag >= 120 && lag < 600, `lag ${lag}`);
      const page = await fetch(`${cn.baseUrl}/status`);
      assert.equal(page.status, 200);
      assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
      const text = await page.text();
      assert.match(text, /<h2>Harvest of the Member Nodes<\/h2><table id="harvest">/);
      assert.match(text, /<td>urn:node:MN1<\/td>/);
      assert.match(text, /<h2>Replicas<\/h2>/);
      assert.match(text, /<dd id="search-memory" class="">[\d.]+ (B|KiB|MiB) of 1\.0 GiB<\/dd>/);
      assert.match(
        text,
        /<dd id="process-memory" class="">RSS [\d.]+ (MiB|GiB) · V8 heap [\d.]+ (KiB|MiB|GiB) of [\d.]+ (MiB|GiB)<\/dd>/,
      );
    } finally {
      await cn.close();
    }
  });
});
