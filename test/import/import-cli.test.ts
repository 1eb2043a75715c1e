/**
 * `d1node import` as operators meet it: a source that wants a client certificate (HTTPS, a private CA) copied
 * with `--cert`/`--key`/`--ca` as the source's administrator (its event log too, which only administrators and
 * CNs may read); and mistakes answered with one line and exit code 2, never a stack trace: a bad flag, a source
 * that cannot be reached, a data folder whose node is running (SQLite).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createTestPki, type TestPki, USERS } from "../helpers/data/pki.ts";
import { startTestNode, type TestNode } from "../helpers/nodes/node.ts";

const BIN = fileURLToPath(new URL("../../bin/d1node.js", import.meta.url));
/** Imports run with their clock ahead: objects loaded just now are past the import's 2 s lag, without a wait. */
const CLOCK_AHEAD = fileURLToPath(new URL("../helpers/time/clock-ahead.mjs", import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function d1node(args: string[]): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [
      ...(args[0] === "import" ? ["--import", CLOCK_AHEAD] : []),
      BIN,
      ...args,
    ]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Exit code 2 and one line on standard error, no stack trace. */
function refused(run: Run, pattern: RegExp): void {
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, pattern);
  assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
  assert.doesNotMatch(run.stderr, /\n\s+at /);
}

describe("d1node import (certificates, operator mistakes)", () => {
  let pki: TestPki;
  let source: TestNode;
  let target: string;

  before(async () => {
    pki = createTestPki();
    const dataDir = await mkdtemp(path.join(tmpdir(), "d1node-import-tls-"));
    const loaded = await d1node(["load", "-d", dataDir, "--count", "5"]);
    assert.equal(loaded.code, 0, loaded.stderr);
    source = await startTestNode("sqlite", {
      dataDir,
      nodeId: "urn:node:d1node",
      tlsCert: pki.server.certFile,
      tlsKey: pki.server.keyFile,
      clientCa: [pki.caFile],
      adminSubjects: [USERS.admin],
    });
    target = await mkdtemp(path.join(tmpdir(), "d1node-import-tls-target-"));
  });
  after(async () => {
    await source?.close();
    await rm(target, { recursive: true, force: true });
    pki?.close();
  });

  it("copies from a source that authenticates the client certificate, event log included", async () => {
    const { certFile, keyFile } = pki.users.admin;
    const args = ["--from", source.baseUrl, "--cert", certFile, "--key", keyFile, "--ca", pki.caFile];
    const run = await d1node(["import", ...args, "-d", target, "--logs"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /objects copied 5, updated 0, unchanged \d+, failed 0; [\d.]+ MiB received; log entries copied \d+/,
    );
    // The log's copy shows progress too.
    assert.match(run.stderr, /import: copying the event log\nimport: \d+ log entries copied/);
    // A user who may not read the source's log: the objects are fine, the log is named as not copied (exit 1).
    const { certFile: userCert, keyFile: userKey } = pki.users.reader;
    const user = ["--from", source.baseUrl, "--cert", userCert, "--key", userKey, "--ca", pki.caFile];
    const refusedLog = await d1node(["import", ...user, "-d", target, "--logs"]);
    assert.equal(refusedLog.code, 1, refusedLog.stderr);
    assert.match(refusedLog.stderr, /the event log was not copied: NotAuthorized/);
    assert.match(refusedLog.stdout, /objects copied 0, updated 0, unchanged \d+, failed 0/);
  });

  it("answers a bad flag, an unreachable source and a running node's data folder with one line", async () => {
    refused(
      await d1node(["import", "--from", source.baseUrl, "-d", target, "--concurrency", "0"]),
      /--concurrency/,
    );
    refused(
      await d1node(["import", "--from", "ftp://x", "-d", target]),
      /--from must be an http or https URL/,
    );
    refused(
      await d1node(["import", "--from", "http://127.0.0.1:1/mn", "-d", target]),
      /d1node import: could not start: .*could not be reached/,
    );
    refused(
      await d1node(["import", "--from", source.baseUrl, "-d", source.dataDir, "--ca", pki.caFile]),
      /stop it first/,
    );
  });
});
