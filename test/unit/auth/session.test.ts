/**
 * Sessions from credentials: certificate, forwarded DN, token, and both; roles from any subject the session holds;
 * the log and method restrictions the Node document publishes; the auth settings' validation.
 */
import assert from "node:assert/strict";
import { generateKeyPairSync, X509Certificate } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { mayReadLog } from "../../../src/auth/access.ts";
import { memberNodeRestrictions } from "../../../src/auth/restrictions.ts";
import { anonymousSession, createSessionResolver, sessionFor } from "../../../src/auth/session.ts";
import { mintToken } from "../../../src/auth/tokens.ts";
import { resolveConfig } from "../../../src/config/config.ts";
import { createTestPki, GROUP, type TestPki, USERS } from "../../helpers/data/pki.ts";

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const roles = { adminSubjects: [GROUP], cnSubjects: ["CN=cn"] };

describe("session resolver", () => {
  let pki: TestPki;
  before(() => {
    pki = createTestPki();
  });
  after(() => pki.close());
  const resolver = () => createSessionResolver(roles, { tokenKeys: [publicKey] });
  const tls = (cert: string, rejection?: string) => ({
    source: "tls" as const,
    der: new X509Certificate(cert).raw,
    rejection,
    connection: {},
  });

  it("gives public only without credentials, and InvalidToken for a malformed Authorization header", async () => {
    assert.deepEqual([...(await resolver().resolve({})).subjects], ["public"]);
    await assert.rejects(resolver().resolve({ authorization: "Basic abc" }), { name: "InvalidToken" });
  });

  it("makes a group member an administrator when the group is an administrator subject", async () => {
    const session = await resolver().resolve({ certificate: tls(pki.users.member.cert) });
    assert.equal(session.subject, USERS.member);
    assert.ok(session.subjects.has(GROUP) && session.isAdmin && !session.isCn);
  });

  it("puts the certificate subject first and adds the token subject", async () => {
    const token = await mintToken(privateKey, { subject: "CN=token-user" });
    const session = await resolver().resolve({
      certificate: tls(pki.users.reader.cert),
      authorization: `Bearer ${token}`,
    });
    assert.equal(session.subject, USERS.reader);
    assert.ok(session.subjects.has("CN=token-user") && session.subjects.has("authenticatedUser"));
    await assert.rejects(
      resolver().resolve({
        certificate: tls(pki.users.reader.cert, "CERT_HAS_EXPIRED"),
        authorization: `Bearer ${token}`,
      }),
      /expired/,
    );
  });

  it("refuses a token naming this node's sign-in once it has ended; another node's sign-in is not judged here", async () => {
    const open = new Set(["K".repeat(43)]);
    const withSignIn = createSessionResolver(roles, {
      tokenKeys: [publicKey],
      nodeId: "urn:node:HERE",
      browserSessions: {
        lookup: async () => undefined,
        isOpen: async (key) => open.has(key),
      },
    });
    const bound = (node: string, key: string) =>
      mintToken(privateKey, { subject: "CN=browser", browserSession: { node, key } });
    const live = await bound("urn:node:HERE", "K".repeat(43));
    assert.equal((await withSignIn.resolve({ authorization: `Bearer ${live}` })).subject, "CN=browser");
    open.clear();
    await assert.rejects(withSignIn.resolve({ authorization: `Bearer ${live}` }), {
      name: "InvalidToken",
      message: /sign-in that has ended/,
    });
    const elsewhere = await bound("urn:node:ELSEWHERE", "K".repeat(43));
    assert.equal((await withSignIn.resolve({ authorization: `Bearer ${elsewhere}` })).subject, "CN=browser");
    // A node without sign-in cannot tell that its own sign-in is open: refused.
    const withoutSignIn = createSessionResolver(roles, { tokenKeys: [publicKey], nodeId: "urn:node:HERE" });
    await assert.rejects(withoutSignIn.resolve({ authorization: `Bearer ${live}` }), {
      name: "InvalidToken",
    });
  });

  it("re-serialises a forwarded DN, and refuses text that is no DN", async () => {
    const session = await resolver().resolve({ dn: "/DC=org/CN=Someone" });
    assert.equal(session.subject, "CN=Someone,DC=org");
    await assert.rejects(resolver().resolve({ dn: "nonsense" }), { name: "InvalidToken" });
  });

  it("never grants roles through symbolic subjects", () => {
    assert.ok(!sessionFor("CN=x", { adminSubjects: ["authenticatedUser"], cnSubjects: ["public"] }).isAdmin);
    assert.throws(() => resolveConfig({ adminSubjects: ["authenticatedUser"] }), /adminSubjects/);
  });
});

describe("restrictions and the log", () => {
  it("publishes who may call restricted methods, per service", () => {
    const config = { ...roles, submitters: ["CN=s"], logReaders: "trusted" as const, cnBaseUrl: undefined };
    const r = memberNodeRestrictions(config);
    assert.deepEqual(r.MNCore, [{ methodName: "getLogRecords", subjects: ["CN=cn", GROUP] }]);
    assert.deepEqual(
      r.MNStorage?.map((m) => m.methodName),
      ["create", "update", "generateIdentifier", "delete"],
    );
    assert.deepEqual(r.MNStorage?.[0]?.subjects, ["CN=s", "CN=cn", GROUP]);
    const open = memberNodeRestrictions({
      ...config,
      submitters: ["authenticatedUser"],
      logReaders: "readers",
    });
    assert.deepEqual(open.MNCore, []);
    assert.deepEqual(
      open.MNStorage?.map((m) => m.methodName),
      ["delete"],
    );
  });

  it("restricts getReplica to CNs and administrators only when no CN decides per object (isNodeAuthorized)", () => {
    const config = { ...roles, submitters: ["CN=s"], logReaders: "trusted" as const };
    const standalone = memberNodeRestrictions({ ...config, cnBaseUrl: undefined });
    assert.deepEqual(standalone.MNRead?.find((m) => m.methodName === "getReplica")?.subjects, [
      "CN=cn",
      GROUP,
    ]);
    const federated = memberNodeRestrictions({ ...config, cnBaseUrl: "https://cn.example.org/cn" });
    assert.equal(
      federated.MNRead?.find((m) => m.methodName === "getReplica"),
      undefined,
    );
    assert.deepEqual(
      federated.MNRead?.map((m) => m.methodName),
      ["synchronizationFailed", "systemMetadataChanged"],
    );
  });

  it("opens getLogRecords to every caller only when logReaders is readers", () => {
    assert.ok(!mayReadLog(anonymousSession(), "trusted"));
    assert.ok(mayReadLog(anonymousSession(), "readers"));
    assert.ok(mayReadLog(sessionFor("CN=cn", roles), "trusted"));
  });
});

describe("auth settings", () => {
  it("validates TLS, proxy and CN settings", () => {
    assert.throws(() => resolveConfig({ tlsCert: "a.pem" }), /tlsKey/);
    assert.throws(() => resolveConfig({ proxySecret: "short" }), /proxySecret/);
    assert.throws(() => resolveConfig({ cnBaseUrl: "cn.example.org" }), /cnBaseUrl/);
    assert.throws(() => resolveConfig({ logReaders: "everyone" }), /logReaders/);
    assert.throws(() => resolveConfig({ proxyCertHeader: "bad header" }), /proxyCertHeader/);
    const c = resolveConfig({
      tlsCert: "a.pem",
      tlsKey: "a.key",
      port: 8443,
      cnBaseUrl: "https://cn.example.org/cn/",
    });
    assert.equal(c.baseUrl, "https://127.0.0.1:8443/mn");
    assert.equal(c.cnBaseUrl, "https://cn.example.org/cn");
    assert.equal(c.proxyCertHeader, "x-ssl-client-cert");
  });
});
