/**
 * One scrape target per process (docs/deployment.md, "Metrics and status page"): two `d1node serve --no-worker`
 * processes and a `d1node worker` on one PostgreSQL database behind HAProxy, each started with --metrics-port.
 * Each serving process's target counts the requests it answered alone; the worker's has the queue and its
 * process figures; every serving process's status page shows the queue.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { mintToken } from "../../../src/auth/tokens.ts";
import { call } from "../../helpers/clients/client.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../../helpers/db/postgres.ts";
import { ADMIN, testDialects } from "../../helpers/nodes/node.ts";
import { type Deployment, startDeployment } from "../../helpers/nodes/scale-out.ts";

/** The value of one sample line, e.g. `d1node_http_requests_total{method="MNRead.listObjects",status="200"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

if (testDialects().includes("postgres")) {
  describe("each serving process and each worker has its own scrape target", () => {
    let dir: string;
    let database: TestPostgres;
    let deployment: Deployment;
    let token: string;

    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), "d1node-process-metrics-"));
      database = await createTestPostgresDatabase();
      token = await mintToken(loadOrCreateSigningKey(dir).privateKey, { subject: ADMIN });
      deployment = await startDeployment(
        dir,
        {
          nodeId: "urn:node:METRICS",
          dataDir: dir,
          databaseUrl: database.url,
          adminSubjects: [ADMIN],
          logLevel: "warn",
        },
        { apis: 2, workers: 1, metricsPorts: true },
      );
    });
    after(async () => {
      await deployment?.stop();
      await database?.drop();
      await rm(dir, { recursive: true, force: true });
    });

    it("a serving process's target counts its own requests; the worker's has the queue", async () => {
      assert.equal(deployment.metricsUrls.length, 3);
      const [first, second] = deployment.apiUrls as [string, string];
      for (let i = 0; i < 5; i++)
        assert.equal((await call({ baseUrl: first }, "GET", "/object?count=1")).status, 200);
      for (let i = 0; i < 2; i++)
        assert.equal((await call({ baseUrl: second }, "GET", "/object?count=1")).status, 200);
      const scrapes = await Promise.all(
        deployment.metricsUrls.map(async (url) => {
          const response = await fetch(url);
          assert.equal(response.status, 200, url);
          return response.text();
        }),
      );
      const [api1, api2, worker] = scrapes as [string, string, string];
      const listed = 'd1node_http_requests_total{method="MNRead.listObjects",status="200"}';
      assert.equal(sample(api1, listed), 5);
      assert.equal(sample(api2, listed), 2);
      for (const text of scrapes) {
        assert.equal(sample(text, 'd1node_info{node_id="urn:node:METRICS",role="mn"}'), 1);
        assert.ok(text.includes("# TYPE d1node_tasks gauge"));
        assert.ok((sample(text, "process_resident_memory_bytes") ?? 0) > 0);
      }
      assert.ok(!worker.includes("d1node_http_requests_total{"), "a worker answers no requests");
      // Only GET /metrics is served there.
      assert.equal((await fetch(deployment.metricsUrls[0]?.replace(/metrics$/, "status") ?? "")).status, 404);
      // Each serving process's status page shows the queue (read from the shared database).
      for (const baseUrl of deployment.apiUrls) {
        const page = await fetch(`${baseUrl}/status`, { headers: { authorization: `Bearer ${token}` } });
        assert.equal(page.status, 200, baseUrl);
        const html = await page.text();
        assert.ok(html.includes('id="queue-depth"') && html.includes("<h2>Task queue</h2>"), baseUrl);
      }
    });
  });
}
