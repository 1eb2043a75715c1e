/**
 * What the real command says to an operator's mistakes, each in one line that names the thing: a certificate
 * this user may not read ("cannot read", not "cannot write"), `d1node token` as a user who may not read the
 * node's key (no second key made), a config file with a syntax error (file, line, column) or absent, a data
 * folder that is a file; `register --node-url` without a data folder fetches the public Node document
 * anonymously and creates nothing; `--version`.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { BIN, type CliRun, runCli } from "../../helpers/nodes/cli.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

/** The command as another user (nobody), the way an operator runs it from the wrong account. */
function runAsNobody(args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      "setpriv",
      [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", process.execPath, BIN, ...args],
      { cwd: tmpdir(), env: { ...process.env, D1NODE_DEBUG: "" }, timeout: 90_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function oneLine(run: CliRun, line: RegExp): void {
  assert.equal(run.code, 2, `exit ${run.code}: ${run.stdout}${run.stderr}`);
  assert.equal(run.stderr.trimEnd().split("\n").length, 1, run.stderr);
  assert.match(run.stderr.trimEnd(), line);
}

describe("what the command says to an operator", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "d1node-wording-"));
    await chmod(dir, 0o755);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("--version", async () => {
    const run = await runCli(["--version"]);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^d1node \d+\.\d+\.\d+\n$/);
  });

  it("names the config file and the line of a syntax error; an absent one in one line", async () => {
    const file = path.join(dir, "bad.json");
    await writeFile(file, '{\n  "port": 0,\n  "nodeName": "x",,\n}\n');
    oneLine(
      await runCli(["serve", "-c", file]),
      /^d1node serve: config file .*bad\.json, line 3 column 19: not JSON: /,
    );
    oneLine(
      await runCli(["serve", "-c", path.join(dir, "none.json")]),
      /^d1node serve: config file .*none\.json does not exist$/,
    );
  });

  it("a data folder that is a file", async () => {
    const file = path.join(dir, "a-file");
    await writeFile(file, "");
    oneLine(
      await runCli(["serve", "--port", "0", "-d", file]),
      /^d1node serve: cannot make the folder .*a-file: a file of that name is in the way/,
    );
  });

  it("an unreadable certificate says cannot read", {
    skip: !asRoot && "needs root to act as another user",
  }, async () => {
    const pem = path.join(dir, "cert.pem");
    await writeFile(pem, "not read\n", { mode: 0o600 });
    const data = path.join(dir, "nobody-data");
    await mkdir(data);
    await chown(data, NOBODY, NOBODY);
    oneLine(
      await runAsNobody(["serve", "--port", "0", "-d", data, "--tls-cert", pem, "--tls-key", pem]),
      /^d1node serve: cannot read .*cert\.pem: permission denied$/,
    );
  });

  it("token as a user who may not read the node's key makes no key", {
    skip: !asRoot && "needs root to act as another user",
  }, async () => {
    const data = path.join(dir, "node-data");
    // A node's data folder (as `serve` leaves it); `token` itself makes no data folder.
    loadOrCreateSigningKey(data);
    assert.equal((await runCli(["token", "-d", data, "-s", ADMIN])).code, 0);
    const keys = readdirSync(path.join(data, "keys"));
    oneLine(
      await runAsNobody(["token", "-d", data, "-s", ADMIN]),
      /^d1node token: cannot read the node's signing key .*: permission denied; run this as the user the node runs as/,
    );
    assert.deepEqual(readdirSync(path.join(data, "keys")), keys);
  });

  describe("register --node-url without a data folder", () => {
    let mn: TestNode;
    let cn: TestNode;
    before(async () => {
      mn = await startTestNode("sqlite", { nodeId: "urn:node:WORDMN" });
      cn = await startTestNode("sqlite", { role: "cn", nodeId: "urn:node:WORDCN" });
    });
    after(async () => {
      await mn?.close();
      await cn?.close();
    });

    it("fetches the Node document anonymously and creates nothing", { timeout: 60_000 }, async () => {
      const cwd = path.join(dir, "register-here");
      await mkdir(cwd);
      const register = ["register", "--cn", cn.baseUrl, "--node-url", mn.baseUrl];
      const token = await cn.token("CN=urn:node:WORDMN,DC=dataone,DC=org");
      const done = await runCli([...register, "--token", token], {}, cwd);
      assert.equal(done.code, 0, done.stderr);
      assert.match(done.stdout, /^urn:node:WORDMN registered with .*: pending approval/);
      assert.deepEqual(readdirSync(cwd), []);

      const without = await runCli(register, {}, cwd);
      oneLine(
        without,
        /^d1node register: nothing to register with: .*d1node-data holds no node signing key; give --token/,
      );
      assert.deepEqual(readdirSync(cwd), []);
      assert.equal(existsSync(path.join(cwd, "d1node-data")), false);
    });
  });
});
