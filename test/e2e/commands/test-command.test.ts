/**
 * `npm test` on a machine that lacks what the tests need, and cannot install it (no apt-get on the PATH): it stops
 * at once with one line naming what is missing and the command that installs it, before any test runs.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** A PATH with every program of the current one except `hidden`. */
function pathWithout(hidden: string[], folder: string): string {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (hidden.includes(name)) continue;
      const target = path.join(dir, name);
      try {
        accessSync(target, constants.X_OK);
        symlinkSync(target, path.join(folder, name));
      } catch {
        // not a program, or a name an earlier PATH entry already gave
      }
    }
  }
  return folder;
}

function runTestCommand(
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // Its own process group, so that a run that went on into the suite is stopped whole.
    const child = spawn("bash", ["scripts/test.sh"], {
      cwd: ROOT,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk;
    });
    // A command that went on into the suite instead of stopping: the assertion below names it.
    const timer = setTimeout(() => process.kill(-(child.pid ?? 0), "SIGKILL"), 30_000);
    child.once("error", reject);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("npm test without its prerequisites", () => {
  const folders = [
    mkdtempSync(path.join(tmpdir(), "d1node-path-")),
    mkdtempSync(path.join(tmpdir(), "d1node-path-")),
  ];
  after(() => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });
  // Nothing can be installed or started: no apt-get, no pg_ctlcluster.
  const noXmllint = pathWithout(["xmllint", "apt-get", "pg_ctlcluster"], folders[0] ?? "");
  const noInstaller = pathWithout(["apt-get", "pg_ctlcluster"], folders[1] ?? "");

  it("names the missing xmllint and Chromium in one line, and runs nothing", {
    timeout: 60_000,
  }, async () => {
    const run = await runTestCommand({
      ...process.env,
      PATH: noXmllint,
      D1NODE_CHROMIUM: "/nonexistent/chromium",
    });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.equal(run.stdout, "");
    assert.equal(
      run.stderr,
      "prerequisites: missing xmllint, Chromium (/nonexistent/chromium); install with: sudo apt-get install -y libxml2-utils chromium\n",
    );
  });

  it("names a PostgreSQL that does not answer in one line", { timeout: 60_000 }, async () => {
    const url = "postgres://postgres@127.0.0.1:9/postgres";
    const run = await runTestCommand({ ...process.env, PATH: noInstaller, D1NODE_TEST_PG_URL: url });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.equal(run.stdout, "");
    assert.match(
      run.stderr,
      /^prerequisites: PostgreSQL does not answer at postgres:\/\/postgres@127\.0\.0\.1:9\/postgres: [^\n]+\n$/,
    );
  });
});
