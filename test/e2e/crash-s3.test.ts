/**
 * "A crash at any point leaves either the old state or the new one", with the bytes in S3 (a real RADOS
 * Gateway): a node process is killed (SIGKILL) in the middle of creates and updates of objects up to a few
 * multipart parts long, restarted, and shows no half-visible object; the bucket then holds no temporary, no
 * unfinished multipart upload and no bytes that nothing references.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { loadOrCreateSigningKey } from "../../src/auth/keys.ts";
import { mintToken } from "../../src/auth/tokens.ts";
import { openDatabase } from "../../src/db/index.ts";
import { createS3Store } from "../../src/store/s3-store.ts";
import { type Caller, call, create, enc, update } from "../helpers/client.ts";
import { ADMIN, testDialects } from "../helpers/node.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../helpers/postgres.ts";
import { type NodeProcess, spawnNode } from "../helpers/process-node.ts";
import { countUnder, createTestBucket, S3_CREDENTIALS, S3_ENDPOINT, type TestBucket } from "../helpers/s3.ts";
import { uniquePid } from "../helpers/sysmeta.ts";

const sha1 = (data: Buffer) => createHash("sha1").update(data).digest("hex");

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

      const created = new Map<string, Buffer>();
      const updates: [string, string][] = [];
      let stop = false;
      const worker = async () => {
        while (!stop) {
          const pid = uniquePid("crash");
          const bytes = randomBytes(64 * 1024 + Math.floor(Math.random() * 12 * 1024 * 1024));
          created.set(pid, bytes);
          try {
            const response = await create(caller, pid, bytes);
            if (response.status !== 200 || stop) continue;
            const next = uniquePid("crash-v2");
            const nextBytes = randomBytes(100_000);
            created.set(next, nextBytes);
            updates.push([pid, next]);
            await update(caller, pid, next, nextBytes);
          } catch {
            return; // the server is gone
          }
        }
      };
      const workers = Array.from({ length: 4 }, worker);
      await new Promise((r) => setTimeout(r, 4000));
      await running.kill("SIGKILL");
      stop = true;
      await Promise.all(workers);
      const left = await countUnder(bucket.client, bucket.name, "node/tmp/");
      t.diagnostic(`temporaries and unfinished uploads the kill left: ${left}`);

      running = await spawnNode(args);
      caller = { baseUrl: running.baseUrl, token };
      let visible = 0;
      for (const [pid, bytes] of created) {
        const meta = await call(caller, "GET", `/meta/${enc(pid)}`);
        if (meta.status === 404) continue;
        assert.equal(meta.status, 200);
        visible++;
        const body = Buffer.from(await (await call(caller, "GET", `/object/${enc(pid)}`)).arrayBuffer());
        assert.equal(sha1(body), sha1(bytes), pid);
      }
      assert.ok(visible > 0, "no object was created before the kill");
      for (const [oldPid, newPid] of updates) {
        const oldMeta = await (await call(caller, "GET", `/meta/${enc(oldPid)}`)).text();
        const newExists = (await call(caller, "GET", `/meta/${enc(newPid)}`)).status === 200;
        assert.equal(
          oldMeta.includes(`<obsoletedBy>${newPid}</obsoletedBy>`),
          newExists,
          `${oldPid} -> ${newPid}`,
        );
      }
      await running.kill("SIGTERM");
      running = undefined;

      const db = await openDatabase(
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
