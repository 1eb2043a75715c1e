/**
 * "A crash at any point leaves either the old state or the new one": a node process is killed (SIGKILL) in the
 * middle of creates and updates, restarted on the same data folder, and shows no half-visible object and no
 * bytes that nothing references.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { loadOrCreateSigningKey } from "../../src/auth/keys.ts";
import { mintToken } from "../../src/auth/tokens.ts";
import { openDatabase } from "../../src/db/index.ts";
import { createFsStore } from "../../src/store/index.ts";
import { type Caller, call, create, enc, update } from "../helpers/client.ts";
import { ADMIN } from "../helpers/node.ts";
import { type NodeProcess, spawnNode } from "../helpers/process-node.ts";
import { uniquePid } from "../helpers/sysmeta.ts";

describe("SIGKILL during creates and updates", () => {
  let dataDir: string;
  let running: NodeProcess | undefined;
  after(async () => {
    await running?.kill("SIGKILL");
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("leaves old or new state, and no orphaned bytes", { timeout: 120_000 }, async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "d1node-crash-"));
    const args = ["--data-dir", dataDir, "--admin-subject", ADMIN];
    running = await spawnNode(args);
    const token = await mintToken(loadOrCreateSigningKey(dataDir).privateKey, { subject: ADMIN });
    let caller: Caller = { baseUrl: running.baseUrl, token };

    const created = new Map<string, Buffer>();
    const updates: [string, string][] = [];
    let stop = false;
    const worker = async () => {
      while (!stop) {
        const pid = uniquePid("crash");
        const bytes = randomBytes(64 * 1024 + Math.floor(Math.random() * 2 * 1024 * 1024));
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
    const workers = Array.from({ length: 6 }, worker);
    await new Promise((r) => setTimeout(r, 2500));
    await running.kill("SIGKILL");
    stop = true;
    await Promise.all(workers);

    running = await spawnNode(args);
    caller = { baseUrl: running.baseUrl, token };
    let visible = 0;
    for (const [pid, bytes] of created) {
      const meta = await call(caller, "GET", `/meta/${enc(pid)}`);
      if (meta.status === 404) continue;
      assert.equal(meta.status, 200);
      visible++;
      const body = Buffer.from(await (await call(caller, "GET", `/object/${enc(pid)}`)).arrayBuffer());
      assert.equal(
        createHash("sha1").update(body).digest("hex"),
        createHash("sha1").update(bytes).digest("hex"),
        pid,
      );
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
    const db = await openDatabase({ sqlitePath: path.join(dataDir, "d1node.sqlite") });
    const store = await createFsStore(path.join(dataDir, "store"));
    try {
      for await (const key of store.keys()) {
        assert.ok((await db.objects.countByContentKey(key)) > 0, `bytes ${key} are referenced by no object`);
      }
      assert.deepEqual(await db.blobIntents.list(), []);
      const temp = await readdir(path.join(dataDir, "store", "tmp")).catch(() => []);
      assert.deepEqual(temp, []);
    } finally {
      await db.close();
      await store.close();
    }
  });
});
