/**
 * Client certificates over real TLS connections to a listening node: the subject, groups and equivalent
 * identities of the SubjectInfo extension, expired and foreign certificates (InvalidToken, never public),
 * anonymous callers on the same port, and certificates together with bearer tokens.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { closeTlsAgents, tlsCall } from "../../helpers/clients/tls-client.ts";
import { createBody, newPid } from "../../helpers/data/auth-objects.ts";
import { CN_NODE, createTestPki, GROUP, type Issued, type TestPki, USERS } from "../../helpers/data/pki.ts";
import { startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

describe("client certificates over TLS", () => {
  let pki: TestPki;
  let node: TestNode;
  let ca: string;
  const as = (cert?: Issued, token?: string) => ({ baseUrl: `${node.baseUrl}/v2`, ca, cert, token });

  before(async () => {
    pki = createTestPki();
    ca = (await import("node:fs")).readFileSync(pki.caFile, "utf8");
    node = await startTestNode("sqlite", {
      tlsCert: pki.server.certFile,
      tlsKey: pki.server.keyFile,
      clientCa: [pki.caFile],
      adminSubjects: [USERS.admin],
      cnSubjects: [CN_NODE],
    });
  });
  after(async () => {
    closeTlsAgents();
    await node.close();
    pki.close();
  });

  it("serves HTTPS and answers anonymous callers as public", async () => {
    assert.match(node.baseUrl, /^https:\/\/127\.0\.0\.1:\d+\/mn$/);
    const ping = await tlsCall(as(), "GET", "/monitor/ping");
    assert.equal(ping.status, 200);
    const pid = newPid("public");
    const refused = await tlsCall(
      as(),
      "POST",
      "/object",
      createBody(pid, { rightsHolder: "x", accessPolicy: [] }),
    );
    assert.equal(refused.error, "NotAuthorized");
  });

  it("takes the session subject from the certificate DN", async () => {
    const pid = newPid("mine");
    const created = await tlsCall(
      as(pki.users.writer),
      "POST",
      "/object",
      createBody(pid, { rightsHolder: USERS.writer, accessPolicy: [] }),
    );
    assert.equal(created.status, 200, created.body);
    const meta = await tlsCall(as(pki.users.writer), "GET", `/meta/${encodeURIComponent(pid)}`);
    assert.match(meta.body, new RegExp(`<submitter>${USERS.writer}</submitter>`));
    assert.equal(
      (await tlsCall(as(pki.users.other), "GET", `/meta/${encodeURIComponent(pid)}`)).error,
      "NotAuthorized",
    );
    assert.equal((await tlsCall(as(), "GET", `/meta/${encodeURIComponent(pid)}`)).error, "NotAuthorized");
  });

  it("expands groups and equivalent identities from the SubjectInfo extension", async () => {
    const pid = newPid("group");
    const spec = {
      rightsHolder: USERS.owner,
      accessPolicy: [{ subjects: [GROUP], permissions: ["read" as const] }],
    };
    assert.equal((await tlsCall(as(pki.users.admin), "POST", "/object", createBody(pid, spec))).status, 200);
    const path = `/object/${encodeURIComponent(pid)}`;
    assert.equal((await tlsCall(as(pki.users.member), "GET", path)).status, 200);
    assert.equal((await tlsCall(as(pki.users.reader), "GET", path)).error, "NotAuthorized");
    // The alias is an equivalent identity of the owner: it may archive (changePermission).
    const archived = await tlsCall(as(pki.users.alias), "PUT", `/archive/${encodeURIComponent(pid)}`);
    assert.equal(archived.status, 200, archived.body);
  });

  it("answers expired and foreign certificates with InvalidToken on every call", async () => {
    for (const cert of [pki.users.expired, pki.users.untrusted]) {
      const ping = await tlsCall(as(cert), "GET", "/monitor/ping");
      assert.equal(ping.error, "InvalidToken", cert.subject);
      const list = await tlsCall(as(cert), "GET", "/object");
      assert.equal(list.error, "InvalidToken");
      assert.equal(list.detailCode, "1530");
    }
    assert.match((await tlsCall(as(pki.users.expired), "GET", "/object")).body, /expired/);
    assert.match((await tlsCall(as(pki.users.untrusted), "GET", "/object")).body, /not issued by a CA/);
  });

  it("combines a certificate and a token: certificate subject first, token subject as an equivalent", async () => {
    const pid = newPid("both");
    const spec = { rightsHolder: USERS.owner, accessPolicy: [] };
    const token = await node.token(USERS.admin);
    const created = await tlsCall(as(pki.users.reader, token), "POST", "/object", createBody(pid, spec));
    assert.equal(created.status, 200, created.body);
    const meta = await tlsCall(as(pki.users.admin), "GET", `/meta/${encodeURIComponent(pid)}`);
    assert.match(meta.body, new RegExp(`<submitter>${USERS.reader}</submitter>`));
    // A bad credential is never ignored because a good one came with it.
    const forged = await tlsCall(as(pki.users.reader, `${token}x`), "GET", "/object");
    assert.equal(forged.error, "InvalidToken");
    const expired = await tlsCall(as(pki.users.expired, token), "GET", "/object");
    assert.equal(expired.error, "InvalidToken");
  });
});
