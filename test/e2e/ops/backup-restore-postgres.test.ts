/**
 * Backup and restore of a PostgreSQL node, by the procedure docs/deployment.md gives ("Backup and restore",
 * PostgreSQL): pg_dump of the node's database while it serves, then a copy of its `store/` and `keys/` folders;
 * createdb + pg_restore into a fresh database and a copy into a fresh data folder. The restored node passes
 * `d1node audit` and serves every object with its bytes.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";
import { type Caller, call, create, enc } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN_URL, withAdmin } from "../../helpers/db/postgres.ts";
import { runCli } from "../../helpers/nodes/cli.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

const run = promisify(execFile);

describe("backup and restore of a PostgreSQL node (pg_dump + the store)", {
  skip: process.env.D1NODE_TEST_PG === "skip" && "PostgreSQL tests are skipped",
}, () => {
  let dir: string | undefined;
  let original: TestNode | undefined;
  let restored: TestNode | undefined;
  const restoredName = `d1node_test_restored_${randomBytes(6).toString("hex")}`;
  after(async () => {
    await restored?.close();
    await original?.close();
    await withAdmin((client) => client.query(`drop database if exists ${restoredName} with (force)`));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("the restored node passes the audit and serves every object", { timeout: 120_000 }, async () => {
    dir = await mkdtemp(path.join(tmpdir(), "d1node-pg-backup-"));
    original = await startTestNode("postgres");
    const caller: Caller = { baseUrl: original.baseUrl, token: await original.token(ADMIN) };
    const objects = new Map<string, Buffer>();
    for (let i = 0; i < 8; i++) {
      const pid = uniquePid(`pgbk${i}`);
      const bytes = randomBytes(500 + i * 20_000);
      assert.equal((await create(caller, pid, bytes)).status, 200);
      objects.set(pid, bytes);
    }
    const sourceUrl = original.node.ctx.config.databaseUrl;
    assert.ok(sourceUrl);

    // The backup, while the node serves: the dump first, then the store and the keys.
    const backup = path.join(dir, "backup");
    await mkdir(backup);
    const dump = path.join(backup, "d1node.pgdump");
    await run("pg_dump", ["--format=custom", `--file=${dump}`, sourceUrl]);
    const dataDir = original.dataDir;
    await run("cp", [
      "-a",
      "--reflink=auto",
      path.join(dataDir, "store"),
      path.join(dataDir, "keys"),
      backup,
    ]);
    await original.close();
    original = undefined;

    // The restore: a new database and a new data folder.
    await run("createdb", [`--maintenance-db=${ADMIN_URL}`, restoredName]);
    const restoredUrl = new URL(ADMIN_URL);
    restoredUrl.pathname = `/${restoredName}`;
    await run("pg_restore", ["--no-owner", `--dbname=${restoredUrl}`, dump]);
    const restoredDir = path.join(dir, "restored");
    await mkdir(restoredDir);
    await run("cp", ["-a", path.join(backup, "store"), path.join(backup, "keys"), restoredDir]);

    const audit = await runCli([
      "audit",
      "--data-dir",
      restoredDir,
      "--database-url",
      restoredUrl.toString(),
    ]);
    assert.equal(audit.code, 0, audit.stderr + audit.stdout);
    assert.match(audit.stdout, /audited 8 objects, .*: 0 mismatched, 0 missing/);

    restored = await startTestNode("sqlite", { dataDir: restoredDir, databaseUrl: restoredUrl.toString() });
    const reader: Caller = { baseUrl: restored.baseUrl, token: await restored.token(ADMIN) };
    for (const [pid, bytes] of objects) {
      const response = await call(reader, "GET", `/object/${enc(pid)}`);
      assert.equal(response.status, 200, pid);
      assert.deepEqual(Buffer.from(await response.arrayBuffer()), bytes);
    }
  });
});
