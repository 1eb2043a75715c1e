/**
 * A Member Node whose `cnBaseUrl` is a real d1node CN: the MN's sessions are expanded from the CN's groups
 * (CNIdentity.getSubjectInfo), and the MN serves getReplica to a node the CN scheduled a replica for
 * (CNReplication.isNodeAuthorized, asked as the MN with its own token, which the CN trusts), not to others.
 */
import assert from "node:assert/strict";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { approveNode } from "../../../src/services/cn/register.ts";
import { type Caller, call, create, enc, form, okXml } from "../../helpers/clients/client.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, CN_SUBJECT, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

const BOB = "CN=Bob,O=d1node,C=US,DC=cilogon,DC=org";
const GROUP = "CN=federated-readers,DC=dataone,DC=org";
const TARGET = "CN=urn:node:TARGET,DC=dataone,DC=org";
const V1 = 'xmlns:d1="http://ns.dataone.org/service/types/v1"';
const TARGET_NODE = `<?xml version="1.0" encoding="UTF-8"?><d1:node xmlns:d1="http://ns.dataone.org/service/types/v2.0" replicate="true" synchronize="false" type="mn" state="up"><identifier>urn:node:TARGET</identifier><name>T</name><description>replica target</description><baseURL>https://target.example.org/mn</baseURL><services><service name="MNCore" version="v2" available="true"/></services><subject>${TARGET}</subject><contactSubject>${TARGET}</contactSubject></d1:node>`;

describe("an MN federated with a d1node CN", () => {
  let cn: TestNode;
  let mn: TestNode;
  before(async () => {
    const mnDir = await mkdtemp(path.join(tmpdir(), "d1node-test-"));
    const mnKey = path.join(mnDir, "mn-public.pem");
    const { publicKey } = loadOrCreateSigningKey(mnDir);
    await writeFile(mnKey, publicKey.export({ type: "spki", format: "pem" }));
    cn = await startTestNode("sqlite", { role: "cn", nodeId: "urn:node:TESTCN", trustedTokenKeys: [mnKey] });
    mn = await startTestNode("sqlite", { dataDir: mnDir, cnBaseUrl: cn.baseUrl, cnSubjectInfoTtl: 0 });
  });
  after(async () => {
    await mn.close();
    await cn.close();
  });

  it("a CN group grants access on the MN", async () => {
    const pid = uniquePid("fed");
    const mnAdmin = { baseUrl: mn.baseUrl, token: await mn.token(ADMIN) };
    await okXml(await create(mnAdmin, pid, Buffer.from("f"), { rightsHolder: ADMIN, readers: [GROUP] }));
    const bobOnMn: Caller = { baseUrl: mn.baseUrl, token: await mn.token(BOB) };
    assert.equal((await call(bobOnMn, "GET", `/meta/${enc(pid)}`)).status, 401);

    const bobOnCn = { baseUrl: cn.baseUrl, token: await cn.token(BOB) };
    const person = `<?xml version="1.0" encoding="UTF-8"?><d1:person ${V1}><subject>${BOB}</subject><givenName>Bob</givenName><familyName>B</familyName></d1:person>`;
    await okXml(await call(bobOnCn, "POST", "/accounts", { body: form({ person: { xml: person } }) }));
    const group = `<?xml version="1.0" encoding="UTF-8"?><d1:group ${V1}><subject>${GROUP}</subject><groupName>Federated</groupName><hasMember>${BOB}</hasMember><rightsHolder>${BOB}</rightsHolder></d1:group>`;
    await okXml(await call(bobOnCn, "POST", "/groups", { body: form({ group: { xml: group } }) }));

    assert.equal((await call(bobOnMn, "GET", `/meta/${enc(pid)}`)).status, 200);
  });

  it("getReplica goes to the node the CN scheduled, and only to it", async () => {
    const pid = uniquePid("fedrep");
    const mnAdmin = { baseUrl: mn.baseUrl, token: await mn.token(ADMIN) };
    await okXml(await create(mnAdmin, pid, Buffer.from("replica me\n"), { readers: ["CN=nobody"] }));

    const cnAdmin = { baseUrl: cn.baseUrl, token: await cn.token(CN_SUBJECT) };
    const target = { baseUrl: cn.baseUrl, token: await cn.token(TARGET) };
    await okXml(await call(target, "POST", "/node", { body: form({ node: { xml: TARGET_NODE } }) }));
    assert.equal(await approveNode(cn.node.ctx.db, "urn:node:TARGET"), true);
    const xml = sysmetaXml(pid, Buffer.from("replica me\n"), { readers: ["CN=nobody"] });
    await okXml(await call(cnAdmin, "POST", "/meta", { body: form({ pid, sysmeta: { xml } }) }));
    const replica = `<?xml version="1.0" encoding="UTF-8"?><d1:replica ${V1}><replicaMemberNode>urn:node:TARGET</replicaMemberNode><replicationStatus>requested</replicationStatus><replicaVerified>2026-01-01T00:00:00Z</replicaVerified></d1:replica>`;
    const scheduled = await call(cnAdmin, "PUT", `/replicaMetadata/${enc(pid)}`, {
      body: form({ replicaMetadata: { xml: replica }, serialVersion: "1" }),
    });
    assert.equal(scheduled.status, 200);

    const targetOnMn = { baseUrl: mn.baseUrl, token: await mn.token(TARGET) };
    const pulled = await call(targetOnMn, "GET", `/replica/${enc(pid)}`);
    assert.equal(pulled.status, 200);
    assert.equal(await pulled.text(), "replica me\n");
    const stranger = { baseUrl: mn.baseUrl, token: await mn.token("CN=urn:node:STRANGER,DC=dataone,DC=org") };
    assert.equal((await call(stranger, "GET", `/replica/${enc(pid)}`)).status, 401);
  });
});
