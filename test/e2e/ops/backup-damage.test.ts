/**
 * Backup hashes what it copies: on a running SQLite node with a byte flipped in one content file and another
 * file removed, `d1node backup` names both objects (MISMATCH / MISSING, the audit's words), lists them in
 * BACKUP.json and exits 1; `d1node restore` of that backup says MISMATCH too. `d1node audit --repair --from-backup`
 * puts the good bytes of an earlier backup back on the standalone node (and a backup holding bad bytes repairs
 * nothing).
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { BackupManifest } from "../../../src/ops/backup.ts";
import { type Caller, call, create, enc } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { runCli } from "../../helpers/nodes/cli.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

const objectFile = (root: string, bytes: Buffer) => {
  const key = createHash("sha256").update(bytes).digest("hex");
  return path.join(root, "store", "objects", key.slice(0, 2), key.slice(2, 4), key);
};

describe("backup finds damaged bytes; audit repairs from a backup", () => {
  let dir: string;
  let node: TestNode;
  let admin: Caller;
  const objects: { pid: string; bytes: Buffer }[] = [];

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "d1node-backup-damage-"));
    node = await startTestNode("sqlite", { dataDir: path.join(dir, "data"), auditInterval: 0 });
    admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
    for (let i = 0; i < 5; i++) {
      const pid = uniquePid(`damage${i}`);
      const bytes = randomBytes(50_000 + i);
      assert.equal((await create(admin, pid, bytes)).status, 200);
      objects.push({ pid, bytes });
    }
  });
  after(async () => {
    await node?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("names damaged objects in the backup, exit 1; restore and repair agree", {
    timeout: 180_000,
  }, async () => {
    const dataDir = path.join(dir, "data");
    const good = await runCli(["backup", "--data-dir", dataDir, path.join(dir, "good")]);
    assert.equal(good.code, 0, good.stderr);

    const [flipped, removed] = objects as [(typeof objects)[0], (typeof objects)[0]];
    const flippedFile = objectFile(dataDir, flipped.bytes);
    const damaged = Buffer.from(await readFile(flippedFile));
    damaged[100] = (damaged[100] as number) ^ 0x01;
    await writeFile(flippedFile, damaged);
    await rename(objectFile(dataDir, removed.bytes), path.join(dir, "removed"));

    const bad = await runCli(["backup", "--data-dir", dataDir, path.join(dir, "bad")]);
    assert.equal(bad.code, 1, bad.stderr);
    assert.match(bad.stdout, new RegExp(`^MISMATCH ${flipped.pid}: SHA-256 of the stored bytes is`, "m"));
    assert.match(bad.stdout, new RegExp(`^MISSING ${removed.pid}: the stored bytes are absent`, "m"));
    assert.match(bad.stdout, /2 damaged content files/);
    const manifest = JSON.parse(
      await readFile(path.join(dir, "bad", "BACKUP.json"), "utf8"),
    ) as BackupManifest;
    assert.deepEqual(manifest.damaged?.map((d) => [d.kind, d.pids]).sort(), [
      ["digest", [flipped.pid]],
      ["missing", [removed.pid]],
    ]);

    // The restore's audit uses the same words as the audit and the backup.
    const restore = await runCli([
      "restore",
      "--data-dir",
      path.join(dir, "restored"),
      path.join(dir, "bad"),
    ]);
    assert.equal(restore.code, 1, restore.stderr);
    assert.match(restore.stdout, new RegExp(`^MISMATCH ${flipped.pid}: `, "m"));
    assert.match(restore.stdout, new RegExp(`^MISSING ${removed.pid}: `, "m"));
    assert.doesNotMatch(restore.stdout, /^DIGEST /m);

    // A backup with the same bad bytes repairs nothing.
    const useless = await runCli([
      "audit",
      "--data-dir",
      dataDir,
      "--repair",
      "--from-backup",
      path.join(dir, "bad"),
    ]);
    assert.equal(useless.code, 1, useless.stderr);
    assert.doesNotMatch(useless.stdout, /repaired/);

    const repair = await runCli([
      "audit",
      "--data-dir",
      dataDir,
      "--repair",
      "--from-backup",
      path.join(dir, "good"),
    ]);
    assert.equal(repair.code, 0, `${repair.stdout}${repair.stderr}`);
    assert.match(
      repair.stdout,
      new RegExp(`^MISMATCH ${flipped.pid}: .*\\(repaired from the backup\\)$`, "m"),
    );
    assert.match(
      repair.stdout,
      new RegExp(`^MISSING ${removed.pid}: .*\\(repaired from the backup\\)$`, "m"),
    );
    for (const { pid, bytes } of [flipped, removed]) {
      const response = await call(admin, "GET", `/object/${enc(pid)}`);
      assert.equal(response.status, 200);
      assert.ok(Buffer.from(await response.arrayBuffer()).equals(bytes), pid);
    }
    const again = await runCli(["audit", "--data-dir", dataDir]);
    assert.equal(again.code, 0, again.stdout);
    const afterRepair = await runCli(["backup", "--data-dir", dataDir, path.join(dir, "after")]);
    assert.equal(afterRepair.code, 0, afterRepair.stdout);
  });

  it("refuses --from-backup without --repair, and a folder that is not a backup", {
    timeout: 60_000,
  }, async () => {
    const dataDir = path.join(dir, "data");
    const alone = await runCli(["audit", "--data-dir", dataDir, "--from-backup", dir]);
    assert.equal(alone.code, 2);
    assert.equal(alone.stderr, "d1node audit: --from-backup goes with --repair\n");
    const notBackup = await runCli(["audit", "--data-dir", dataDir, "--repair", "--from-backup", dataDir]);
    assert.equal(notBackup.code, 2, notBackup.stdout);
    assert.match(notBackup.stderr, /is not a complete backup \(no BACKUP.json\)/);
  });
});
