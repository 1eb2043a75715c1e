/**
 * `d1node serve --no-worker` on PostgreSQL: the serving process runs none of the node's background tasks (the
 * CN's start-up tasks stay queued), and a `d1node worker` process on the same configuration runs them.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { LOG_AGGREGATION } from "../../../src/federation/logs/tasks.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../../helpers/db/postgres.ts";
import { testDialects } from "../../helpers/nodes/node.ts";
import { type NodeProcess, spawnNode } from "../../helpers/nodes/process-node.ts";
import { spawnWorker, type WorkerProcess } from "../../helpers/nodes/worker-process.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const NODE_ID = "urn:node:NOWORKERCN";

if (testDialects().includes("postgres")) {
  describe("d1node serve --no-worker (postgres)", () => {
    let database: TestPostgres;
    let dataDir: string;
    let node: NodeProcess | undefined;
    let worker: WorkerProcess | undefined;
    let client: pg.Client;
    before(async () => {
      database = await createTestPostgresDatabase();
      dataDir = await mkdtemp(path.join(tmpdir(), "d1node-no-worker-"));
    });
    after(async () => {
      await worker?.kill("SIGKILL");
      await node?.kill();
      await client?.end();
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    });

    /** The log-aggregation runs queued: how often each was claimed. */
    const aggregationRuns = async () =>
      (
        await client.query<{ attempts: number; state: string }>(
          "select attempts, state from tasks where kind = $1 order by id",
          [LOG_AGGREGATION],
        )
      ).rows.map((row) => ({ attempts: Number(row.attempts), state: row.state }));

    it("leaves the tasks queued; a worker process runs them", async () => {
      const settings = [
        "--role",
        "cn",
        "--node-id",
        NODE_ID,
        "--data-dir",
        dataDir,
        "--database-url",
        database.url,
      ];
      node = await spawnNode([...settings, "--no-worker"]);
      client = new pg.Client({ connectionString: database.url });
      await client.connect();
      // Queued at start-up, due at once: a worker in the process would claim it within its first poll (200 ms).
      assert.deepEqual(await aggregationRuns(), [{ attempts: 0, state: "ready" }]);
      await sleep(1000);
      assert.deepEqual(await aggregationRuns(), [{ attempts: 0, state: "ready" }], "still queued");

      const config = path.join(dataDir, "cn.json");
      await writeFile(
        config,
        JSON.stringify({ role: "cn", nodeId: NODE_ID, dataDir, databaseUrl: database.url }),
      );
      worker = await spawnWorker(config);
      await eventually("the worker ran the aggregation", async () =>
        new RegExp(`^task ${LOG_AGGREGATION} .*done`, "m").test(worker?.output() ?? "") ? true : undefined,
      );
      // It ran and queued its next run, for later.
      const runs = await aggregationRuns();
      assert.deepEqual(runs, [{ attempts: 0, state: "ready" }]);
      const next = await client.query<{ run_at: string }>("select run_at from tasks where kind = $1", [
        LOG_AGGREGATION,
      ]);
      assert.ok(Number(next.rows[0]?.run_at) > Date.now() + 60_000);
    });
  });
}
