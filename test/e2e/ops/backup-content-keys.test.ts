/**
 * A backup's database names the content files to copy; `d1node restore` takes only content keys (SHA-256 in hex)
 * from it, never a path: a copy whose database names `../../...` is refused and nothing is written outside the
 * data folder.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { access, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, it } from "node:test";
import SQLite from "better-sqlite3";
import { create } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { runCli } from "../../helpers/nodes/cli.ts";
import { ADMIN, startTestNode } from "../../helpers/nodes/node.ts";

let dir: string | undefined;
after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("restore refuses a database copy naming a path as a content key", { timeout: 120_000 }, async () => {
  dir = await mkdtemp(path.join(tmpdir(), "d1node-backup-keys-"));
  const dataDir = path.join(dir, "data");
  const node = await startTestNode("sqlite", { dataDir });
  const made = await create(
    { baseUrl: node.baseUrl, token: await node.token(ADMIN) },
    uniquePid("k"),
    randomBytes(100),
  );
  assert.equal(made.status, 200, await made.text());
  await node.node.close();
  const backupDir = path.join(dir, "backup");
  const backup = await runCli(["backup", "--data-dir", dataDir, backupDir]);
  assert.equal(backup.code, 0, backup.stderr);

  // A file outside the backup that the crafted key points at, and where a copy of it would land.
  await mkdir(path.join(dir, "outside"));
  await writeFile(path.join(dir, "outside", "secret"), "not content");
  const db = new SQLite(path.join(backupDir, "d1node.sqlite"));
  db.prepare("update objects set content_key = ?").run("../../../../outside/secret");
  db.close();

  const restored = path.join(dir, "restored");
  const restore = await runCli(["restore", "--data-dir", restored, backupDir]);
  assert.notEqual(restore.code, 0, restore.stdout);
  assert.match(restore.stderr, /content key/);
  const landed = await access(path.join(dir, "secret")).then(
    () => true,
    () => false,
  );
  assert.equal(landed, false, "nothing written outside the data folder");
});
