/**
 * The access matrix: every Member Node operation x every kind of caller, over real TLS connections with client
 * certificates and bearer tokens, against the expected answer of each cell (docs/decisions.md, "Who may do what").
 * The object under test has rightsHolder `owner` and the policy reader:read, writer:write, changer:changePermission,
 * group:write; the submitter allow-list is writer, changer, owner and the group. Every wrong cell is reported.
 */
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { mintToken } from "../../../src/auth/tokens.ts";
import { detailCodeFor } from "../../../src/errors/catalogue.ts";
import type { AccessRule } from "../../../src/types/index.ts";
import { MN_CALLS } from "../../helpers/clients/matrix-calls.ts";
import { closeTlsAgents, type TlsCaller, tlsCall } from "../../helpers/clients/tls-client.ts";
import { createBody, newPid, type ObjectSpec } from "../../helpers/data/auth-objects.ts";
import { CN_NODE, createTestPki, GROUP, type TestPki, USERS } from "../../helpers/data/pki.ts";
import { startTestNode, type TestNode } from "../../helpers/nodes/node.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";

const CALLERS = [
  "anonymous",
  "other",
  "reader",
  "writer",
  "writerToken",
  "changer",
  "owner",
  "groupMember",
  "equivalent",
  "cn",
  "admin",
  "expiredToken",
  "forgedToken",
  "untrustedCert",
  "expiredCert",
] as const;
type Caller = (typeof CALLERS)[number];
type Outcome = "ok" | "NotAuthorized" | "NotFound" | "InvalidToken" | "listed" | "unlisted";

const INVALID = new Set<Caller>(["expiredToken", "forgedToken", "untrustedCert", "expiredCert"]);
const TRUSTED = new Set<Caller>(["cn", "admin"]);
const CHANGERS = new Set<Caller>(["changer", "owner", "equivalent", ...TRUSTED]);
const WRITERS = new Set<Caller>(["writer", "writerToken", "groupMember", ...CHANGERS]);
const READERS = new Set<Caller>(["reader", ...WRITERS]);
/** The allow-list (writer, changer, owner, group) plus the trusted callers; the equivalent stands for the owner. */
const SUBMITTERS = new Set<Caller>([
  "writer",
  "writerToken",
  "changer",
  "owner",
  "groupMember",
  "equivalent",
  ...TRUSTED,
]);

const POLICY: AccessRule[] = [
  { subjects: [USERS.reader], permissions: ["read"] },
  { subjects: [USERS.writer], permissions: ["write"] },
  { subjects: [USERS.changer], permissions: ["changePermission"] },
  { subjects: [GROUP], permissions: ["write"] },
];
const SPEC: ObjectSpec = { rightsHolder: USERS.owner, accessPolicy: POLICY };

/** Expected outcome for a valid caller; invalid credentials are InvalidToken in every row. */
const when =
  (allowed: Set<Caller>, yes: Outcome = "ok", no: Outcome = "NotAuthorized") =>
  (c: Caller) =>
    allowed.has(c) ? yes : no;
const always = (outcome: Outcome) => () => outcome;

/**
 * The expected answers, one row per operation (the calls themselves are in test/helpers/clients/matrix-calls.ts).
 */
const TABLE: [label: string, expect: (caller: Caller) => Outcome][] = [
  ["ping", always("ok")],
  ["getCapabilities", always("ok")],
  ["getLogRecords", when(TRUSTED)],
  ["listObjects", when(READERS, "listed", "unlisted")],
  ["get", when(READERS)],
  ["describe", when(READERS)],
  ["getSystemMetadata", when(READERS)],
  ["getChecksum", when(READERS)],
  ["get (missing)", always("NotFound")],
  ["getReplica", when(TRUSTED)],
  ["synchronizationFailed", when(TRUSTED)],
  ["systemMetadataChanged", when(TRUSTED)],
  ["isAuthorized read", when(READERS)],
  ["isAuthorized write", when(WRITERS)],
  ["isAuthorized changePermission", when(CHANGERS)],
  ["isAuthorized (missing)", always("NotFound")],
  ["create", when(SUBMITTERS)],
  ["generateIdentifier", when(SUBMITTERS)],
  ["update", when(new Set([...WRITERS].filter((c) => SUBMITTERS.has(c))))],
  ["update (missing)", when(SUBMITTERS, "NotFound")],
  ["archive", when(CHANGERS)],
  ["archive (missing)", always("NotFound")],
  ["delete", when(TRUSTED)],
  ["delete (missing)", when(TRUSTED, "NotFound")],
  ["updateSystemMetadata", when(CHANGERS)],
  // An anonymous caller is refused before the body (and so the pid) is read.
  ["updateSystemMetadata (missing)", (c) => (c === "anonymous" ? "NotAuthorized" : "NotFound")],
];

describe("access matrix: every MN operation x every kind of caller", () => {
  let pki: TestPki;
  let node: TestNode;
  const callers = {} as Record<Caller, TlsCaller>;

  before(async () => {
    pki = createTestPki();
    node = await startTestNode("sqlite", {
      tlsCert: pki.server.certFile,
      tlsKey: pki.server.keyFile,
      clientCa: [pki.caFile],
      adminSubjects: [USERS.admin],
      cnSubjects: [CN_NODE],
      submitters: [USERS.writer, USERS.changer, USERS.owner, GROUP],
      isAuthorizedLimit: 0,
    });
    const base = { baseUrl: `${node.baseUrl}/v2`, ca: readFileSync(pki.caFile, "utf8") };
    const u = pki.users;
    const forger = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
    Object.assign(callers, {
      anonymous: base,
      other: { ...base, cert: u.other },
      reader: { ...base, cert: u.reader },
      writer: { ...base, cert: u.writer },
      writerToken: { ...base, token: await node.token(USERS.writer) },
      changer: { ...base, cert: u.changer },
      owner: { ...base, cert: u.owner },
      groupMember: { ...base, cert: u.member },
      equivalent: { ...base, cert: u.alias },
      cn: { ...base, cert: pki.cn },
      admin: { ...base, cert: u.admin },
      expiredToken: { ...base, token: await node.token(USERS.admin, -60) },
      forgedToken: { ...base, token: await mintToken(forger, { subject: USERS.admin }) },
      untrustedCert: { ...base, cert: u.untrusted },
      expiredCert: { ...base, cert: u.expired },
    });
  });
  after(async () => {
    closeTlsAgents();
    await node.close();
    pki.close();
  });

  it("gives the expected answer in every cell", async () => {
    const fresh = async () => {
      const pid = newPid("matrix-cell");
      const made = await tlsCall(callers.admin, "POST", "/object", createBody(pid, SPEC));
      assert.equal(made.status, 200, made.body);
      return pid;
    };
    const pid = await fresh();
    const missing = newPid("matrix-missing");
    const wrong: string[] = [];
    const table: string[] = [
      `| operation | ${CALLERS.join(" | ")} |`,
      `|---|${CALLERS.map(() => "---").join("|")}|`,
    ];
    let cells = 0;
    assert.deepEqual(TABLE.map(([label]) => label).sort(), Object.keys(MN_CALLS).sort(), "one row per call");
    for (const [label, expect] of TABLE) {
      const call = MN_CALLS[label];
      assert.ok(call, label);
      const line: string[] = [];
      for (const caller of CALLERS) {
        const expected: Outcome = INVALID.has(caller) ? "InvalidToken" : expect(caller);
        const response = await call.run(callers[caller], {
          pid,
          missing,
          spec: SPEC,
          fresh,
          admin: callers.admin,
        });
        let actual: string = response.status === 200 ? "ok" : response.error || `HTTP ${response.status}`;
        if (call.method === "MNRead.listObjects" && actual === "ok") {
          actual = response.body.includes(`<identifier>${pid}</identifier>`) ? "listed" : "unlisted";
        }
        cells += 1;
        line.push(actual === expected ? actual : `**${actual}** (expected ${expected})`);
        if (actual !== expected) {
          wrong.push(
            `${label} as ${caller}: expected ${expected}, got ${actual}: ${response.body.slice(0, 300)}`,
          );
        } else if (
          response.status !== 200 &&
          response.detailCode !== detailCodeFor(call.method, actual as never)
        ) {
          wrong.push(`${label} as ${caller}: ${actual} with detailCode ${response.detailCode}`);
        }
      }
      table.push(`| ${label} | ${line.join(" | ")} |`);
    }
    assert.equal(cells, TABLE.length * CALLERS.length);
    assert.deepEqual(wrong, [], `${wrong.length} wrong of ${cells} cells\n${table.join("\n")}`);
  });

  it("publishes the restricted methods in its Node document, v1 and v2", async () => {
    for (const version of ["v1", "v2"]) {
      const doc = await tlsCall(
        { ...callers.anonymous, baseUrl: callers.anonymous.baseUrl.replace("/v2", `/${version}`) },
        "GET",
        "/node",
      );
      await validateXml(doc.body);
      for (const method of [
        "create",
        "update",
        "generateIdentifier",
        "delete",
        "getLogRecords",
        "getReplica",
      ]) {
        assert.match(doc.body, new RegExp(`<restriction methodName="${method}">`), `${version} ${method}`);
      }
      const create = /<restriction methodName="create">(.*?)<\/restriction>/.exec(doc.body)?.[1] ?? "";
      for (const subject of [USERS.writer, GROUP, CN_NODE, USERS.admin])
        assert.ok(create.includes(`<subject>${subject}</subject>`), subject);
      assert.ok(!create.includes(USERS.reader));
    }
  });
});
