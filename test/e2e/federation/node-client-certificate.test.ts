/**
 * Node-to-node calls with the node's client certificate: a peer served over HTTPS that asks for client
 * certificates sees the calling node's subject (its certificate's DN) with no token at all; the peer's server
 * certificate must chain to `peerCa`.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { resolveConfig } from "../../../src/config/config.ts";
import type { NodeContext } from "../../../src/context/node-context.ts";
import { clientFor } from "../../../src/federation/client.ts";
import { createTestPki, type TestPki } from "../../helpers/data/pki.ts";
import { startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

describe("node client certificates", () => {
  let pki: TestPki;
  let peer: TestNode;

  before(async () => {
    pki = createTestPki();
    const served = pki.node("urn:node:PEER");
    peer = await startTestNode("sqlite", {
      nodeId: "urn:node:PEER",
      tlsCert: served.certFile,
      tlsKey: served.keyFile,
      clientCa: [pki.caFile],
      cnSubjects: ["CN=urn:node:CALLERCN,DC=dataone,DC=org"],
    });
  });
  after(async () => {
    await peer.close();
    pki.close();
  });

  /** A node context that is enough for clientFor: the calling node's settings. */
  const caller = (settings: Record<string, unknown>) =>
    ({
      config: resolveConfig({ dataDir: pki.dir, nodeId: "urn:node:CALLERCN", ...settings }),
    }) as NodeContext;

  it("presents the node certificate: a CN-only call succeeds with no token sent", async () => {
    const cert = pki.node("urn:node:CALLERCN");
    const ctx = caller({
      nodeCert: cert.certFile,
      nodeKey: cert.keyFile,
      peerCa: [pki.caFile],
      nodeTokens: "never",
    });
    assert.equal(ctx.config.nodeSubject, "CN=urn:node:CALLERCN,DC=dataone,DC=org");
    const log = await clientFor(ctx, peer.baseUrl).getLogRecords({ count: 1 });
    assert.equal(log.start, 0);
  });

  it("without a certificate the same call is refused (the token is not trusted there)", async () => {
    const ctx = caller({ peerCa: [pki.caFile] });
    await assert.rejects(clientFor(ctx, peer.baseUrl).getLogRecords({ count: 1 }), { name: "InvalidToken" });
  });

  it("refuses a peer whose server certificate does not chain to peerCa", async () => {
    const cert = pki.node("urn:node:CALLERCN");
    const ctx = caller({ nodeCert: cert.certFile, nodeKey: cert.keyFile, peerCa: [pki.otherCaFile] });
    await assert.rejects(clientFor(ctx, peer.baseUrl).getCapabilities(), {
      name: "ServiceFailure",
      message: /could not be reached/,
    });
  });
});
