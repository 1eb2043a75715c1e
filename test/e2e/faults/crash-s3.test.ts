/**
 * "A crash at any point leaves either the old state or the new one", with the bytes in S3 (a real RADOS
 * Gateway): a node process is killed (SIGKILL) in the middle of creates and updates of objects up to a few
 * multipart parts long, restarted, and shows no half-visible object; the bucket then holds no temporary, no
 * unfinished multipart upload and no bytes that nothing references.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { mintToken } from "../../../src/auth/tokens.ts";
import { openNodeDatabase } from "../../../src/node/open-database.ts";
import { createS3Store } from "../../../src/store/s3/s3-store.ts";
import type { Caller } from "../../helpers/clients/client.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../../helpers/db/postgres.ts";
import { assertOldOrNew, loadThenKill } from "../../helpers/faults/crash-load.ts";
import { ADMIN, testDialects } from "../../helpers/nodes/node.ts";
import { type NodeProcess, spawnNode } from "../../helpers/nodes/process-node.ts";
import {
  countUnder,
  createTestBucket,
  S3_CREDENTIALS,
  S3_ENDPOINT,
  type TestBucket,
} from "../../helpers/peers/s3.ts";

for (const dialect of testDialects()) {
  describe(`SIGKILL during creates and updates on an S3 store (${dialect})`, () => {
    let dataDir: string;
    let running: NodeProcess | undefined;
    let bucket: TestBucket | undefined;
    let pg: TestPostgres | undefined;
    after(async () => {
      await running?.kill("SIGKILL");
      await bucket?.drop();
      await pg?.drop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it("leaves old or new state, no temporaries and no orphaned bytes", { timeout: 180_000 }, async (t) => {
      dataDir = await mkdtemp(path.join(tmpdir(), "d1node-crash-s3-"));
      bucket = await createTestBucket();
      if (dialect === "postgres") pg = await createTestPostgresDatabase();
      // The node process takes its credentials from the environment, as a deployed node does.
      process.env.AWS_ACCESS_KEY_ID = S3_CREDENTIALS.accessKeyId;
      process.env.AWS_SECRET_ACCESS_KEY = S3_CREDENTIALS.secretAccessKey;
      // One process on the bucket: after a restart every temporary is a crash's leftover.
      process.env.D1NODE_STORE_TEMP_MAX_AGE = "0";
      process.env.D1NODE_STORE_PATH_STYLE = "true";
      const args = [
        "--data-dir",
        dataDir,
        "--admin-subject",
        ADMIN,
        "--store",
        `s3://${bucket.name}/node`,
        "--store-endpoint",
        S3_ENDPOINT,
        ...(pg ? ["--database-url", pg.url] : []),
      ];
      running = await spawnNode(args);
      const token = await mintToken(loadOrCreateSigningKey(dataDir).privateKey, { subject: ADMIN });
      let caller: Caller = { baseUrl: running.baseUrl, token };

      const load = await loadThenKill(running, caller, {
        workers: 4,
        maxExtraBytes: 12 * 1024 * 1024,
        runMs: 4000,
      });
      const left = await countUnder(bucket.client, bucket.name, "node/tmp/");
      t.diagnostic(`temporaries and unfinished uploads the kill left: ${left}`);

      running = await spawnNode(args);
      caller = { baseUrl: running.baseUrl, token };
      await assertOldOrNew(caller, load);
      await running.kill("SIGTERM");
      running = undefined;

      const db = await openNodeDatabase(
        pg ? { url: pg.url } : { sqlitePath: path.join(dataDir, "d1node.sqlite") },
      );
      const store = await createS3Store(bucket.options("node/"));
      try {
        let keys = 0;
        for await (const key of store.keys()) {
          keys++;
          assert.ok(
            (await db.objects.countByContentKey(key)) > 0,
            `bytes ${key} are referenced by no object`,
          );
        }
        assert.equal(keys > 0, true);
        assert.deepEqual(await db.blobIntents.list(), []);
        assert.equal(await countUnder(bucket.client, bucket.name, "node/tmp/"), 0);
      } finally {
        await db.close();
        await store.close();
      }
    });
  });
}
