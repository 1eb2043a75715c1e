/**
 * "A crash at any point leaves either the old state or the new one": a node process is killed (SIGKILL) in the
 * middle of creates and updates, restarted on the same data folder, and shows no half-visible object and no
 * bytes that nothing references.
 */
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { mintToken } from "../../../src/auth/tokens.ts";
import { openNodeDatabase } from "../../../src/node/open-database.ts";
import { createFsStore } from "../../../src/store/index.ts";
import type { Caller } from "../../helpers/clients/client.ts";
import { assertOldOrNew, loadThenKill } from "../../helpers/faults/crash-load.ts";
import { ADMIN } from "../../helpers/nodes/node.ts";
import { type NodeProcess, spawnNode } from "../../helpers/nodes/process-node.ts";

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

    const load = await loadThenKill(running, caller, {
      workers: 6,
      maxExtraBytes: 2 * 1024 * 1024,
      runMs: 2500,
    });

    running = await spawnNode(args);
    caller = { baseUrl: running.baseUrl, token };
    await assertOldOrNew(caller, load);

    await running.kill("SIGTERM");
    running = undefined;
    const db = await openNodeDatabase({ sqlitePath: path.join(dataDir, "d1node.sqlite") });
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
