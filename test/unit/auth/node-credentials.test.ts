/** When a node's calls carry its bearer token (nodeTokens) besides its certificate. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type NodeCallConfig, sendsNodeToken } from "../../../src/auth/node-credentials.ts";

const config = (settings: Partial<NodeCallConfig>): NodeCallConfig => ({
  dataDir: "unused",
  nodeSubject: "CN=urn:node:X,DC=dataone,DC=org",
  nodeCert: undefined,
  nodeKey: undefined,
  peerCa: [],
  nodeTokens: "auto",
  ...settings,
});

describe("node call credentials", () => {
  it("auto: the token only where no certificate is presented", () => {
    const withCert = config({ nodeCert: "cert.pem", nodeKey: "key.pem" });
    assert.equal(sendsNodeToken(withCert, "https://cn.example.org/cn/v2/node"), false);
    assert.equal(sendsNodeToken(withCert, "http://cn.example.org/cn/v2/node"), true);
    assert.equal(sendsNodeToken(config({}), "https://cn.example.org/cn/v2/node"), true);
  });

  it("always and never override", () => {
    const withCert = { nodeCert: "cert.pem", nodeKey: "key.pem" };
    assert.equal(sendsNodeToken(config({ ...withCert, nodeTokens: "always" }), "https://a/"), true);
    assert.equal(sendsNodeToken(config({ nodeTokens: "never" }), "http://a/"), false);
  });
});
