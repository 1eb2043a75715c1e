/**
 * A browser presents the user's client certificate by itself, whatever page asked: over real TLS, a request a page
 * of another origin makes (an Origin header, or Sec-Fetch-Site cross-site) is not authenticated by it, unless the
 * origin is the node's own or listed in corsOrigins. A hostile page's cross-site form POST (multipart, no
 * preflight) creates nothing in the user's name and its script tags read nothing private; the bearer token MetacatUI
 * sends still counts from any origin, and programs (no Origin, no Sec-Fetch-*) are unaffected.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { closeTlsAgents, tlsCall } from "../../helpers/clients/tls-client.ts";
import { createBody, newPid } from "../../helpers/data/auth-objects.ts";
import { createTestPki, type TestPki, USERS } from "../../helpers/data/pki.ts";
import { startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

const LISTED = "https://search.example.org";
const HOSTILE = "https://evil.example.com";

describe("client certificates and other origins", () => {
  let pki: TestPki;
  let node: TestNode;
  let ca: string;
  const writer = (headers: Record<string, string> = {}) => ({
    baseUrl: `${node.baseUrl}/v2`,
    ca,
    cert: pki.users.writer,
    headers,
  });
  const createAs = (headers: Record<string, string>) => {
    const pid = newPid("cors-cert");
    const body = createBody(pid, { rightsHolder: USERS.writer, accessPolicy: [] });
    return tlsCall(writer(headers), "POST", "/object", body).then((response) => ({ pid, response }));
  };
  const held = async (pid: string) =>
    (await tlsCall(writer(), "GET", `/meta/${encodeURIComponent(pid)}`)).status === 200;

  before(async () => {
    pki = createTestPki();
    ca = readFileSync(pki.caFile, "utf8");
    node = await startTestNode("sqlite", {
      tlsCert: pki.server.certFile,
      tlsKey: pki.server.keyFile,
      clientCa: [pki.caFile],
      corsOrigins: [LISTED],
    });
  });
  after(async () => {
    closeTlsAgents();
    await node.close();
    pki.close();
  });

  it("refuses a hostile page's cross-site form POST with the user's certificate; stores nothing", async () => {
    for (const headers of <Record<string, string>[]>[
      { origin: HOSTILE, "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate" },
      { origin: "null" },
      { origin: `${new URL(node.baseUrl).origin}.evil.example.com` },
    ]) {
      const { pid, response } = await createAs(headers);
      assert.equal(response.error, "NotAuthorized", `${JSON.stringify(headers)}: ${response.body}`);
      assert.equal(await held(pid), false);
    }
  });

  it("takes the certificate from the node's own origin, a listed one, and programs", async () => {
    for (const headers of <Record<string, string>[]>[
      { origin: LISTED },
      { origin: new URL(node.baseUrl).origin, "sec-fetch-site": "same-origin" },
      {},
    ]) {
      const { pid, response } = await createAs(headers);
      assert.equal(response.status, 200, `${JSON.stringify(headers)}: ${response.body}`);
      assert.equal(await held(pid), true);
    }
  });

  it("takes a bearer token from any origin (it is not ambient)", async () => {
    const pid = newPid("cors-token");
    const body = createBody(pid, { rightsHolder: USERS.writer, accessPolicy: [] });
    const response = await tlsCall(
      {
        baseUrl: `${node.baseUrl}/v2`,
        ca,
        token: await node.token(USERS.writer),
        headers: { origin: HOSTILE },
      },
      "POST",
      "/object",
      body,
    );
    assert.equal(response.status, 200, response.body);
    assert.equal(response.headers["access-control-allow-origin"], HOSTILE);
  });

  it("reads a private object for a followed link, not for another site's script tag or fetch", async () => {
    const { pid, response } = await createAs({});
    assert.equal(response.status, 200, response.body);
    const path = `/object/${encodeURIComponent(pid)}`;
    const cases: [Record<string, string>, number][] = [
      [{ "sec-fetch-site": "cross-site", "sec-fetch-mode": "no-cors", "sec-fetch-dest": "script" }, 401],
      [{ "sec-fetch-site": "same-site", "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" }, 401],
      [{ "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate", "sec-fetch-dest": "iframe" }, 401],
      [{ "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" }, 200],
      [{ "sec-fetch-site": "same-origin", "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" }, 200],
      [{ "sec-fetch-site": "none", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" }, 200],
    ];
    for (const [headers, status] of cases) {
      const got = await tlsCall(writer(headers), "GET", path);
      assert.equal(got.status, status, JSON.stringify(headers));
    }
  });
});
