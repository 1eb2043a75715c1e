/**
 * A rolling restart behind HAProxy on deploy/haproxy.cfg (docs/deployment.md, "Several serving processes behind
 * a balancer"): two `d1node serve --no-worker` processes on one PostgreSQL database, each restarted in turn with
 * SIGTERM while clients keep reading through the balancer. With `shutdownGrace`, a stopping process fails its
 * ping (the balancer takes it out) while it still answers, then closes; HAProxy sends a request whose connection
 * fails to the other process. Not one request fails.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { mintToken } from "../../../src/auth/tokens.ts";
import { create, enc } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../../helpers/db/postgres.ts";
import { ADMIN, testDialects } from "../../helpers/nodes/node.ts";
import { spawnNode } from "../../helpers/nodes/process-node.ts";
import { type Deployment, startDeployment } from "../../helpers/nodes/scale-out.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const READERS = 4;

if (testDialects().includes("postgres")) {
  describe("a rolling restart of two serving processes behind HAProxy", () => {
    let dir: string;
    let database: TestPostgres;
    let deployment: Deployment;
    let token: string;

    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), "d1node-rolling-"));
      database = await createTestPostgresDatabase();
      token = await mintToken(loadOrCreateSigningKey(dir).privateKey, { subject: ADMIN });
      deployment = await startDeployment(
        dir,
        {
          nodeId: "urn:node:ROLLING",
          dataDir: dir,
          databaseUrl: database.url,
          adminSubjects: [ADMIN],
          logLevel: "warn",
          shutdownGrace: 4,
        },
        { apis: 2, workers: 0 },
      );
    });
    after(async () => {
      await deployment?.stop();
      await database?.drop();
      await rm(dir, { recursive: true, force: true });
    });

    it("restarting both processes one after the other fails no request", async () => {
      const pid = uniquePid("rolling");
      const content = Buffer.from("read during a restart\n");
      const created = await create({ baseUrl: deployment.baseUrl, token }, pid, content);
      assert.equal(created.status, 200, await created.clone().text());

      const answers: { status: number; servedBy: string; at: number }[] = [];
      let reading = true;
      const readers = Array.from({ length: READERS }, async () => {
        while (reading) {
          const response = await fetch(`${deployment.baseUrl}/v2/object/${enc(pid)}`).catch(
            (error: Error) => ({ status: 0, error }),
          );
          if (!("headers" in response)) {
            answers.push({
              status: 0,
              servedBy: String(response.error.cause ?? response.error),
              at: Date.now(),
            });
            continue;
          }
          const body = Buffer.from(await response.arrayBuffer());
          const servedBy = response.headers.get("x-served-by") ?? "?";
          answers.push({ status: body.equals(content) ? response.status : -1, servedBy, at: Date.now() });
        }
      });

      for (const [i, api] of deployment.apis.entries()) {
        const name = `api${i + 1}`;
        const port = new URL(deployment.apiUrls[i] as string).port;
        const stopped = Date.now();
        await api.kill("SIGTERM");
        assert.ok(Date.now() - stopped >= 4000, "the process kept answering through its grace");
        deployment.apis[i] = await spawnNode([
          "--config",
          deployment.configFile,
          "--no-worker",
          "--port",
          port,
        ]);
        const restarted = Date.now();
        // Back in the balancer's rotation once its health checks pass again.
        await eventually(`${name} serves through the balancer again`, async () =>
          answers.some((a) => a.servedBy === name && a.at > restarted) ? true : undefined,
        );
      }
      reading = false;
      await Promise.all(readers);

      const failed = answers.filter((a) => a.status !== 200);
      assert.deepEqual(failed, [], `${failed.length} of ${answers.length} requests failed`);
      assert.ok(answers.length >= 400, `${answers.length} requests`);
    });
  });
}
