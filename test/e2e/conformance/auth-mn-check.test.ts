/**
 * The official DataONE Python client drives a Member Node listening with TLS, authenticated by a client
 * certificate in the handshake (no token): every MN check, v1 and v2, with 0 failures and none skipped.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { INTEROP_SKIP, runInteropCheck } from "../../helpers/clients/interop.ts";
import { CN_NODE, createTestPki, type TestPki, USERS } from "../../helpers/data/pki.ts";
import { startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

describe("mn_check.py over TLS with a client certificate", { skip: INTEROP_SKIP }, () => {
  let pki: TestPki;
  let node: TestNode;
  before(async () => {
    pki = createTestPki();
    node = await startTestNode("sqlite", {
      tlsCert: pki.server.certFile,
      tlsKey: pki.server.keyFile,
      clientCa: [pki.caFile],
      adminSubjects: [USERS.admin],
      cnSubjects: [CN_NODE],
    });
  });
  after(async () => {
    await node.close();
    pki.close();
  });

  it("passes every check, v1 and v2, with none skipped", async () => {
    const admin = pki.users.admin;
    const run = await runInteropCheck("mn_check.py", [
      node.baseUrl,
      "--cert",
      admin.certFile,
      "--key",
      admin.keyFile,
      "--ca-bundle",
      pki.caFile,
    ]);
    const detail = run.failures.join("\n") || run.output.slice(-3000);
    assert.equal(run.failed, 0, detail);
    assert.equal(run.skipped, 0, detail);
    assert.ok(run.passed >= 100, `only ${run.passed} checks passed\n${detail}`);
    assert.equal(run.exitCode, 0, detail);
  });
});
