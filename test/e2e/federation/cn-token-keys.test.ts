/**
 * Trust without copying keys: a CN publishes its token-signing key at {baseUrl}/token-keys; a Member Node with
 * cnBaseUrl fetches it and accepts the CN's tokens; `d1node keys export` prints the same key.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

describe("the CN's token-signing key, fetched by Member Nodes", () => {
  let cn: TestNode;
  let mn: TestNode;

  before(async () => {
    cn = await startTestNode("sqlite", { role: "cn", nodeId: "urn:node:KEYCN" });
    mn = await startTestNode("sqlite", { cnBaseUrl: cn.baseUrl, adminSubjects: [ADMIN] });
  });
  after(async () => {
    await mn.close();
    await cn.close();
  });

  it("publishes the key as PEM, the same text `d1node keys export` prints", async () => {
    const response = await fetch(`${cn.baseUrl}/token-keys`);
    assert.equal(response.status, 200);
    const pem = await response.text();
    assert.match(pem, /^-----BEGIN PUBLIC KEY-----/);
    const bin = new URL("../../../bin/d1node.js", import.meta.url).pathname;
    assert.equal(
      execFileSync(process.execPath, [bin, "keys", "export", "--data-dir", cn.dataDir]).toString(),
      pem,
    );
  });

  it("a token the CN signed is accepted by the Member Node", async () => {
    const token = await cn.token(ADMIN, 600);
    const log = await fetch(`${mn.baseUrl}/v2/log?count=1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(log.status, 200, await log.text());
  });

  it("a token signed by another key is still InvalidToken", async () => {
    const stranger = await startTestNode("sqlite", { nodeId: "urn:node:STRANGER" });
    try {
      const token = await stranger.token(ADMIN, 600);
      const log = await fetch(`${mn.baseUrl}/v2/log?count=1`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(log.status, 401);
      assert.match(await log.text(), /InvalidToken/);
    } finally {
      await stranger.close();
    }
  });
});
