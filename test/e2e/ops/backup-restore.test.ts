/**
 * `d1node backup` of a running SQLite node under write load, and `d1node restore`: every create acknowledged
 * before the backup began is in the restored node and served with its bytes, and the restore's audit passes.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { mintToken } from "../../../src/auth/tokens.ts";
import { type Caller, call, create, enc } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { runCli } from "../../helpers/nodes/cli.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";
import { type NodeProcess, spawnNode } from "../../helpers/nodes/process-node.ts";

describe("backup of a running SQLite node under write load, and restore", () => {
  let dir: string;
  let running: NodeProcess | undefined;
  let restored: TestNode | undefined;
  after(async () => {
    await running?.kill();
    await restored?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("restores every acknowledged write, and passes the audit", { timeout: 300_000 }, async () => {
    dir = await mkdtemp(path.join(tmpdir(), "d1node-backup-"));
    const dataDir = path.join(dir, "data");
    running = await spawnNode(["--data-dir", dataDir, "--admin-subject", ADMIN]);
    const token = await mintToken(loadOrCreateSigningKey(dataDir).privateKey, { subject: ADMIN });
    const caller: Caller = { baseUrl: running.baseUrl, token };

    const acknowledged: { pid: string; bytes: Buffer; at: number }[] = [];
    let stop = false;
    const writer = async () => {
      while (!stop) {
        const pid = uniquePid("bk");
        const bytes = randomBytes(1000 + Math.floor(Math.random() * 200_000));
        const response = await create(caller, pid, bytes);
        if (response.status === 200) acknowledged.push({ pid, bytes, at: Date.now() });
      }
    };
    const writers = [writer(), writer()];
    while (acknowledged.length < 30) await new Promise((resolve) => setTimeout(resolve, 100));
    const backupStarted = Date.now();
    const backup = await runCli(["backup", "--data-dir", dataDir, path.join(dir, "backup")]);
    stop = true;
    await Promise.all(writers);
    assert.equal(backup.code, 0, backup.stderr);
    assert.match(backup.stdout, /^backup of \d+ objects/);
    await running.kill();
    running = undefined;

    const restore = await runCli([
      "restore",
      "--data-dir",
      path.join(dir, "restored"),
      path.join(dir, "backup"),
    ]);
    assert.equal(restore.code, 0, restore.stderr);
    assert.match(restore.stdout, /audit: \d+ objects, 0 mismatched, 0 missing/);

    restored = await startTestNode("sqlite", { dataDir: path.join(dir, "restored"), adminSubjects: [ADMIN] });
    const reader: Caller = { baseUrl: restored.baseUrl, token: await restored.token(ADMIN) };
    const before = acknowledged.filter((w) => w.at < backupStarted);
    assert.ok(before.length >= 30);
    for (const write of before) {
      const response = await call(reader, "GET", `/object/${enc(write.pid)}`);
      assert.equal(response.status, 200, write.pid);
      assert.ok(Buffer.from(await response.arrayBuffer()).equals(write.bytes), write.pid);
    }
    const audit = await runCli(["audit", "--data-dir", path.join(dir, "restored")]);
    assert.equal(audit.code, 0, audit.stderr);
  });
});
