/**
 * Behind a TLS-terminating proxy: the client certificate (PEM, as nginx and Apache forward it) or the verified DN
 * is believed only when the request carries the shared secret; otherwise those headers are ignored. Forwarded
 * certificates get the checks the TLS stack would make (validity, the CA bundle) and the proxy's own verdict.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createBody, newPid, type ObjectSpec } from "../../helpers/data/auth-objects.ts";
import { CN_NODE, createTestPki, type TestPki, USERS } from "../../helpers/data/pki.ts";
import { startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

const SECRET = "a-long-shared-secret-for-tests";

describe("client credentials forwarded by a trusted proxy", () => {
  let pki: TestPki;
  let node: TestNode;
  let privatePid: string;
  const spec = (readers: string[]): ObjectSpec => ({
    rightsHolder: USERS.owner,
    accessPolicy: readers.length ? [{ subjects: readers, permissions: ["read"] }] : [],
  });
  const get = (path: string, headers: Record<string, string>) =>
    fetch(`${node.baseUrl}/v2${path}`, { headers });
  const errorName = async (response: Response) => /name="([^"]+)"/.exec(await response.text())?.[1] ?? "";
  const nginx = (pem: string) => encodeURIComponent(pem);
  const apache = (pem: string) => pem.trim().replace(/\n/g, " ");

  before(async () => {
    pki = createTestPki();
    node = await startTestNode("sqlite", {
      proxySecret: SECRET,
      clientCa: [pki.caFile],
      adminSubjects: [USERS.admin],
      cnSubjects: [CN_NODE],
    });
    privatePid = newPid("proxy");
    const made = await fetch(`${node.baseUrl}/v2/object`, {
      method: "POST",
      headers: { authorization: `Bearer ${await node.token(USERS.admin)}` },
      body: createBody(privatePid, spec([USERS.reader])),
    });
    assert.equal(made.status, 200, await made.text());
  });
  after(async () => {
    await node.close();
    pki.close();
  });

  it("accepts a forwarded certificate, URL-encoded (nginx) or with newlines as spaces (Apache)", async () => {
    const path = `/meta/${encodeURIComponent(privatePid)}`;
    for (const encode of [nginx, apache, (pem: string) => pem.replace(/\n/g, "")]) {
      const response = await get(path, {
        "x-proxy-secret": SECRET,
        "x-ssl-client-cert": encode(pki.users.reader.cert),
        "x-ssl-client-verify": "SUCCESS",
      });
      assert.equal(response.status, 200, await response.text());
    }
    const other = await get(path, {
      "x-proxy-secret": SECRET,
      "x-ssl-client-cert": nginx(pki.users.other.cert),
    });
    assert.equal(await errorName(other), "NotAuthorized");
  });

  it("accepts a verified DN when no certificate is forwarded (RFC 2253 or legacy slash form)", async () => {
    const path = `/meta/${encodeURIComponent(privatePid)}`;
    for (const dn of [USERS.reader, "/DC=org/DC=cilogon/C=US/O=d1node/CN=Reader B2"]) {
      const response = await get(path, { "x-proxy-secret": SECRET, "x-ssl-client-dn": dn });
      assert.equal(response.status, 200, dn);
    }
    const pid = newPid("proxy-dn");
    const created = await fetch(`${node.baseUrl}/v2/object`, {
      method: "POST",
      headers: { "x-proxy-secret": SECRET, "x-ssl-client-dn": USERS.writer },
      body: createBody(pid, spec(["public"])),
    });
    assert.equal(created.status, 200, await created.text());
    const meta = await (await get(`/meta/${encodeURIComponent(pid)}`, {})).text();
    assert.match(meta, new RegExp(`<submitter>${USERS.writer}</submitter>`));
  });

  it("ignores forwarded credentials without the shared secret, or with a wrong one", async () => {
    const path = `/meta/${encodeURIComponent(privatePid)}`;
    for (const secret of [undefined, "not-the-secret-at-all", `${SECRET}x`]) {
      const headers: Record<string, string> = {
        "x-ssl-client-cert": nginx(pki.users.reader.cert),
        "x-ssl-client-dn": USERS.reader,
        ...(secret ? { "x-proxy-secret": secret } : {}),
      };
      assert.equal(await errorName(await get(path, headers)), "NotAuthorized", String(secret));
    }
  });

  it("refuses expired, foreign, failed and unreadable forwarded certificates with InvalidToken", async () => {
    const cases: Record<string, string>[] = [
      { "x-ssl-client-cert": nginx(pki.users.expired.cert) },
      { "x-ssl-client-cert": nginx(pki.users.untrusted.cert) },
      {
        "x-ssl-client-cert": nginx(pki.users.reader.cert),
        "x-ssl-client-verify": "FAILED:certificate revoked",
      },
      { "x-ssl-client-dn": USERS.reader, "x-ssl-client-verify": "FAILED:unable to verify" },
      { "x-ssl-client-dn": USERS.reader, "x-ssl-client-verify": "GENEROUS" },
      { "x-ssl-client-cert": nginx(pki.users.untrusted.cert), "x-ssl-client-verify": "GENEROUS" },
      { "x-ssl-client-cert": "-----BEGIN CERTIFICATE----- bm90IGEgY2VydA== -----END CERTIFICATE-----" },
      { "x-ssl-client-cert": "%%%" },
    ];
    for (const headers of cases) {
      const response = await get("/object", { "x-proxy-secret": SECRET, ...headers });
      assert.equal(response.status, 401, JSON.stringify(headers));
      assert.equal(await errorName(response), "InvalidToken", JSON.stringify(headers));
    }
  });

  it("treats an empty certificate header (no client certificate) as public", async () => {
    for (const value of ["", "(null)"]) {
      const response = await get("/object", { "x-proxy-secret": SECRET, "x-ssl-client-cert": value });
      assert.equal(response.status, 200);
    }
  });
});
