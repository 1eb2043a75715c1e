/**
 * "Access events are recorded as log entries": a node process is killed (SIGKILL) right after acknowledging its
 * last write, restarted, and every acknowledged create, update and delete has its entry in getLogRecords. The
 * entries of writes are written with the write, not in a later batch.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { mintToken } from "../../../src/auth/tokens.ts";
import { type Caller, call, create, enc, update } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../../helpers/db/postgres.ts";
import { ADMIN, testDialects } from "../../helpers/nodes/node.ts";
import { type NodeProcess, spawnNode } from "../../helpers/nodes/process-node.ts";

const WRITES = 30;

for (const dialect of testDialects()) {
  describe(`SIGKILL after acknowledged writes (${dialect})`, () => {
    let dataDir: string;
    let pg: TestPostgres | undefined;
    let running: NodeProcess | undefined;
    after(async () => {
      await running?.kill("SIGKILL");
      await pg?.drop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it("loses no event of an acknowledged write", { timeout: 120_000 }, async () => {
      dataDir = await mkdtemp(path.join(tmpdir(), "d1node-crash-events-"));
      pg = dialect === "postgres" ? await createTestPostgresDatabase() : undefined;
      const args = [
        "--data-dir",
        dataDir,
        "--admin-subject",
        ADMIN,
        ...(pg ? ["--database-url", pg.url] : []),
      ];
      running = await spawnNode(args);
      const token = await mintToken(loadOrCreateSigningKey(dataDir).privateKey, { subject: ADMIN });
      let caller: Caller = { baseUrl: running.baseUrl, token };

      /** [pid, event] of every acknowledged write. */
      const acknowledged: [string, string][] = [];
      const ok = async (response: Response) => {
        assert.equal(response.status, 200, await response.text());
      };
      for (let i = 0; i < WRITES; i++) {
        const pid = uniquePid("logged");
        await ok(await create(caller, pid, Buffer.from(`object ${i}`)));
        acknowledged.push([pid, "create"]);
        if (i % 3 === 1) {
          const next = uniquePid("logged-v2");
          await ok(await update(caller, pid, next, Buffer.from(`object ${i}, version 2`)));
          acknowledged.push([next, "update"]);
        } else if (i % 3 === 2) {
          await ok(await call(caller, "DELETE", `/object/${enc(pid)}`));
          acknowledged.push([pid, "delete"]);
        }
      }
      // The last acknowledgement is in: kill at once, before any batch timer could run.
      await running.kill("SIGKILL");

      running = await spawnNode(args);
      caller = { baseUrl: running.baseUrl, token };
      const log = await (await call(caller, "GET", "/log?count=10000")).text();
      const logged = new Set(
        [...log.matchAll(/<identifier>([^<]+)<\/identifier>[\s\S]*?<event>([^<]+)<\/event>/g)].map(
          (m) => `${m[1]} ${m[2]}`,
        ),
      );
      const missing = acknowledged.filter(([pid, event]) => !logged.has(`${pid} ${event}`));
      assert.deepEqual(
        missing,
        [],
        `${missing.length} of ${acknowledged.length} acknowledged writes unlogged`,
      );
    });
  });
}
