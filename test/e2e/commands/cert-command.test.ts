/**
 * `d1node cert`: a key and CSR for DataONE's CA, a throw-away CA and node certificates from it, and the check
 * `serve` and `register` also run. openssl (here only, to cross-check) reads what the command wrote.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { runCli } from "../../helpers/nodes/cli.ts";
import { type NodeProcess, spawnNode } from "../../helpers/nodes/process-node.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const dir = mkdtempSync(path.join(tmpdir(), "d1node-cert-"));
const at = (name: string) => path.join(dir, name);
const openssl = (...args: string[]) => execFileSync("openssl", args, { encoding: "utf8", stdio: "pipe" });
const nodes: NodeProcess[] = [];
after(async () => {
  await Promise.all(nodes.map((node) => node.kill()));
  rmSync(dir, { recursive: true, force: true });
});

test("cert request: a key and a CSR with DataONE's subject, the host and both purposes", async () => {
  const run = await runCli([
    "cert",
    "request",
    "--node-id",
    "urn:node:MN1",
    "--host",
    "mn1.example.org",
    "--out",
    at("mn1"),
  ]);
  assert.equal(run.code, 0, run.stderr);
  const text = openssl(
    "req",
    "-in",
    at("mn1.csr"),
    "-noout",
    "-verify",
    "-subject",
    "-text",
    "-nameopt",
    "RFC2253",
  );
  assert.match(text, /^subject=CN=urn:node:MN1,DC=dataone,DC=org$/m);
  assert.match(text, /DNS:mn1\.example\.org/);
  assert.match(text, /TLS Web Server Authentication, TLS Web Client Authentication/);
  assert.match(openssl("pkey", "-in", at("mn1.key"), "-noout", "-text"), /Private-Key: \(2048 bit/);
  const again = await runCli([
    "cert",
    "request",
    "--node-id",
    "urn:node:MN1",
    "--host",
    "x",
    "--out",
    at("mn1"),
  ]);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /mn1\.key exists/);
});

test("cert ca and cert issue: node certificates that chain, serve HTTPS and pass the check", async () => {
  assert.equal((await runCli(["cert", "ca", "--out", at("ca")])).code, 0);
  const issued = await runCli([
    ...["cert", "issue", "--ca", at("ca.pem"), "--ca-key", at("ca.key"), "--node-id", "urn:node:MN2"],
    ...["--host", "localhost", "127.0.0.1", "--out", at("mn2")],
  ]);
  assert.equal(issued.code, 0, issued.stderr);
  assert.match(openssl("verify", "-CAfile", at("ca.pem"), at("mn2.pem")), /OK/);
  const subject = openssl("x509", "-in", at("mn2.pem"), "-noout", "-subject", "-nameopt", "RFC2253");
  assert.equal(subject.trim(), "subject=CN=urn:node:MN2,DC=dataone,DC=org");
  const check = await runCli([
    "cert",
    "check",
    at("mn2.pem"),
    "--node-id",
    "urn:node:MN2",
    "--host",
    "localhost",
  ]);
  assert.equal(check.code, 0, check.stdout);
  assert.match(check.stdout, /CN=urn:node:MN2,DC=dataone,DC=org: as DataONE expects/);
  const node = await spawnNode([
    ...["--data-dir", at("mn2-data"), "--node-id", "urn:node:MN2"],
    ...[
      "--tls-cert",
      at("mn2.pem"),
      "--tls-key",
      at("mn2.key"),
      "--node-cert",
      at("mn2.pem"),
      "--node-key",
      at("mn2.key"),
    ],
  ]);
  nodes.push(node);
  const served = spawnSync(
    "openssl",
    [
      "s_client",
      "-connect",
      new URL(node.baseUrl).host,
      "-CAfile",
      at("ca.pem"),
      "-verify_return_error",
      "-brief",
    ],
    { input: "", encoding: "utf8" },
  );
  assert.match(served.stderr, /Verification: OK/);
  assert.doesNotMatch(node.output(), /warning:/);
});

test("cert check and serve name the classic openssl mistake: the subject in reverse order", async () => {
  openssl(
    ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", at("bad.key"), "-out", at("bad.pem")],
    ...["-subj", "/CN=urn:node:MN3/DC=dataone/DC=org", "-days", "10"],
  );
  const check = await runCli(["cert", "check", at("bad.pem")]);
  assert.equal(check.code, 1);
  assert.match(check.stdout, /subject DC=org,DC=dataone,CN=urn:node:MN3 is in reverse order/);
  assert.match(check.stdout, /no subjectAltName/);
  assert.match(check.stdout, /extended key usage lacks serverAuth and clientAuth/);
  assert.match(check.stdout, /within 30 days/);
  const node = await spawnNode([
    ...["--data-dir", at("mn3-data"), "--node-id", "urn:node:MN3"],
    ...["--node-cert", at("bad.pem"), "--node-key", at("bad.key")],
  ]);
  nodes.push(node);
  await eventually("the warning", async () => {
    const lines = node
      .output()
      .split("\n")
      .filter((line) => line.startsWith("warning: node certificate"));
    assert.equal(lines.length, 1);
    assert.match(
      lines[0] ?? "",
      /is not what DataONE expects: subject DC=org,DC=dataone,CN=urn:node:MN3 is in reverse order/,
    );
    return true;
  });
});
