/**
 * Settings that used to fall back quietly: a `--database-url` that is not a PostgreSQL URL (`mysql://`, `pg://`, a
 * leading space), an empty one (`--database-url "$UNSET"`), an unknown log level. Each is refused by the real
 * command with one line and exit code 2, and nothing is created: no SQLite node appears beside the real database.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { runCli } from "../../helpers/nodes/cli.ts";

describe("settings that must not fall back quietly", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "d1node-settings-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const refused = async (args: string[], env: Record<string, string>, line: RegExp) => {
    const dataDir = path.join(dir, `data-${Math.random().toString(36).slice(2)}`);
    const run = await runCli(["serve", "--port", "0", "--data-dir", dataDir, ...args], env);
    assert.equal(run.code, 2, `${args.join(" ")}: exit ${run.code}\n${run.stdout}${run.stderr}`);
    assert.match(run.stderr, line);
    assert.equal(run.stderr.trimEnd().split("\n").length, 1, run.stderr);
    assert.equal(existsSync(dataDir), false, "a data folder was created");
  };

  it("refuses a database URL that is not postgres:// or postgresql://", { timeout: 120_000 }, async () => {
    const notPostgres =
      /^d1node serve: setting "databaseUrl" must be a PostgreSQL URL starting with postgres:\/\//;
    for (const url of ["mysql://x", "pg://", " postgres://postgres@127.0.0.1/x", "postgres:/x"]) {
      await refused(["--database-url", url], {}, notPostgres);
    }
    await refused([], { D1NODE_DATABASE_URL: "sqlite:///tmp/x" }, notPostgres);
    await refused(["--database-url", ""], {}, /^d1node serve: --database-url is empty/);
    // The message never echoes the URL: it may hold a password.
    const secret = await runCli(["serve", "--database-url", "mysql://me:s3cret@db/x", "-d", dir]);
    assert.doesNotMatch(secret.stderr, /s3cret/);
  });

  it("refuses an unknown log level", { timeout: 60_000 }, async () => {
    await refused(["--log-level", "verbose"], {}, /^d1node serve: setting "logLevel" must be one of .*info/);
  });
});
