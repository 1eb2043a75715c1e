/**
 * The common operator mistakes, through the real command: each gives one readable line on standard error, no
 * stack trace, and a non-zero exit code. Port in use, SQLite locked by a running node, PostgreSQL database
 * missing or unreachable, unreadable or unusable certificate, data folder not writable, bad setting.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { type CliRun, runCli } from "../../helpers/nodes/cli.ts";
import { startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

function assertOneLine(run: CliRun, pattern: RegExp): void {
  assert.notEqual(run.code, 0, `exit code 0; stderr: ${run.stderr}`);
  const lines = run.stderr.split("\n").filter((line) => line !== "");
  assert.equal(lines.length, 1, `not one line:\n${run.stderr}\nstdout: ${run.stdout}`);
  assert.doesNotMatch(run.stderr, /^\s+at /m);
  assert.match(lines[0] as string, pattern);
}

describe("operator mistakes: one line, non-zero exit", () => {
  let dir: string;
  let running: TestNode;
  let busyPort: number;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "d1node-mistakes-"));
    running = await startTestNode("sqlite");
    busyPort = Number(new URL(running.baseUrl).port);
  });
  after(async () => {
    await running?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("names each mistake", { timeout: 400_000 }, async () => {
    const serve = (...args: string[]) => runCli(["serve", "--port", "0", "--log-level", "warn", ...args]);
    const junk = path.join(dir, "junk.pem");
    await writeFile(junk, "not a certificate\n");
    const runs = [
      () => serve("-d", path.join(dir, "a"), "--port", String(busyPort)),
      () => serve("-d", running.dataDir),
      () =>
        serve(
          "-d",
          path.join(dir, "b"),
          "--database-url",
          "postgres://postgres@127.0.0.1:5432/d1node_no_such_db",
        ),
      () => serve("-d", path.join(dir, "c"), "--database-url", "postgres://postgres@127.0.0.1:1/d1node"),
      () => serve("-d", path.join(dir, "d"), "--tls-cert", path.join(dir, "none.pem"), "--tls-key", junk),
      () => serve("-d", path.join(dir, "e"), "--tls-cert", junk, "--tls-key", junk),
      // A folder no one may create, root included (sysfs).
      () => serve("-d", "/sys/fs/d1node-data"),
      () => serve("-d", path.join(dir, "f"), "--node-id", "bad id"),
    ];
    const results: CliRun[] = [];
    for (const run of runs) results.push(await run());
    const [port, locked, missingDb, unreachable, noCert, badCert, notWritable, badSetting] = results as [
      CliRun,
      CliRun,
      CliRun,
      CliRun,
      CliRun,
      CliRun,
      CliRun,
      CliRun,
    ];
    assertOneLine(port, new RegExp(`^d1node serve: port ${busyPort} on 127.0.0.1 is already in use`));
    assertOneLine(locked, /^d1node serve: the embedded database is locked by another process/);
    assertOneLine(
      missingDb,
      /^d1node serve: PostgreSQL database "d1node_no_such_db" does not exist: create it/,
    );
    assertOneLine(unreachable, /^d1node serve: cannot reach 127.0.0.1:1 \(ECONNREFUSED\)/);
    assertOneLine(noCert, /^d1node serve: cannot read .*none\.pem: no such file or folder$/);
    assertOneLine(badCert, /^d1node serve: a certificate or key file is not usable/);
    assertOneLine(notWritable, /^d1node serve: cannot write \/sys\/fs\/d1node-data: /);
    assertOneLine(badSetting, /^d1node serve: nodeId "bad id" must look like urn:node:/);
  });

  it("refuses a backup or restore into a folder in use, and a restore from a non-backup", {
    timeout: 60_000,
  }, async () => {
    const [into, from] = await Promise.all([
      runCli(["backup", "-d", running.dataDir, running.dataDir]),
      runCli(["restore", "-d", path.join(dir, "g"), dir]),
    ]);
    assertOneLine(into, /^d1node backup: the backup folder .* is not empty/);
    assertOneLine(from, /^d1node restore: .* is not a complete backup \(no BACKUP.json\)$/);
  });
});
