/**
 * CNReplication metadata on a real CN, both dialects: setReplicationPolicy and the replica metadata calls check
 * serialVersion (VersionMismatch, nothing changed); setReplicationStatus lets a Member Node report only on its
 * own replica and never complete one the CN did not request; isNodeAuthorized answers for scheduled replicas.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { approveNode } from "../../../src/services/cn/register.ts";
import { type Caller, call, checkedError, create, enc, form, okXml } from "../../helpers/clients/client.ts";
import { elementText, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const ALICE = "CN=Alice,O=d1node,C=US,DC=cilogon,DC=org";
const MN_SUBJECT = "CN=urn:node:MNR,DC=dataone,DC=org";
const V1 = 'xmlns:d1="http://ns.dataone.org/service/types/v1"';
const NODE = `<?xml version="1.0" encoding="UTF-8"?><d1:node xmlns:d1="http://ns.dataone.org/service/types/v2.0" replicate="true" synchronize="true" type="mn" state="up"><identifier>urn:node:MNR</identifier><name>R</name><description>replica target</description><baseURL>https://mnr.example.org/mn</baseURL><services><service name="MNCore" version="v2" available="true"/></services><subject>${MN_SUBJECT}</subject><contactSubject>${MN_SUBJECT}</contactSubject></d1:node>`;

const policyXml = `<?xml version="1.0" encoding="UTF-8"?><d1:replicationPolicy ${V1} replicationAllowed="true" numberReplicas="2"><preferredMemberNode>urn:node:MNR</preferredMemberNode></d1:replicationPolicy>`;
const replicaXml = (node: string, status: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><d1:replica ${V1}><replicaMemberNode>${node}</replicaMemberNode><replicationStatus>${status}</replicationStatus><replicaVerified>2026-01-01T00:00:00Z</replicaVerified></d1:replica>`;

for (const dialect of testDialects()) {
  describe(`CNReplication metadata (${dialect})`, () => {
    const node = withTestNode(dialect, { role: "cn", nodeId: "urn:node:TESTCN" });
    let admin: Caller;
    let alice: Caller;
    let mn: Caller;
    let pid: string;
    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      alice = { baseUrl: node.baseUrl, token: await node.token(ALICE) };
      mn = { baseUrl: node.baseUrl, token: await node.token(MN_SUBJECT) };
      await okXml(await call(mn, "POST", "/node", { body: form({ node: { xml: NODE } }) }));
      assert.equal(await approveNode(node.node.ctx.db, "urn:node:MNR"), true);
      pid = uniquePid("repl");
      await okXml(await create(admin, pid, Buffer.from("r"), { rightsHolder: ALICE, readers: ["public"] }));
    });

    const version = async () =>
      Number(elementText(await okXml(await call(admin, "GET", `/meta/${enc(pid)}`)), "serialVersion"));

    it("setReplicationPolicy: changePermission and the current serialVersion", async () => {
      const put = (c: Caller, serialVersion: number) =>
        call(c, "PUT", `/replicaPolicies/${enc(pid)}`, {
          body: form({ policy: { xml: policyXml }, serialVersion: String(serialVersion) }),
        });
      const denied = await checkedError(await put(mn, 1));
      assert.deepEqual([denied.name, denied.detailCode], ["NotAuthorized", "4881"]);
      const stale = await checkedError(await put(alice, 9));
      assert.deepEqual([stale.name, stale.detailCode], ["VersionMismatch", "4886"]);
      assert.equal((await put(alice, 1)).status, 200);
      assert.match(await okXml(await call(admin, "GET", `/meta/${enc(pid)}`)), /numberReplicas="2"/);
    });

    it("updateReplicationMetadata (CNs only) schedules a replica; isNodeAuthorized then answers for its node", async () => {
      const put = (c: Caller, serialVersion: number) =>
        call(c, "PUT", `/replicaMetadata/${enc(pid)}`, {
          body: form({
            replicaMetadata: { xml: replicaXml("urn:node:MNR", "queued") },
            serialVersion: String(serialVersion),
          }),
        });
      const denied = await checkedError(await put(mn, await version()));
      assert.deepEqual([denied.name, denied.detailCode], ["NotAuthorized", "4851"]);
      const stale = await checkedError(await put(admin, 99));
      assert.deepEqual([stale.name, stale.detailCode], ["VersionMismatch", "4855"]);
      assert.equal((await put(admin, await version())).status, 200);
      const ask = (subject: string) =>
        call(
          admin,
          "GET",
          `/replicaAuthorizations/${enc(pid)}?targetNodeSubject=${encodeURIComponent(subject)}`,
        );
      assert.equal((await ask(MN_SUBJECT)).status, 200);
      const other = await checkedError(await ask("CN=other node,DC=org"));
      assert.deepEqual([other.status, other.name, other.detailCode], [401, "NotAuthorized", "4871"]);
    });

    it("setReplicationStatus: a Member Node reports on its own replica, along the allowed moves only", async () => {
      const put = (c: Caller, nodeRef: string, status: string) =>
        call(c, "PUT", `/replicaNotifications/${enc(pid)}`, { body: form({ nodeRef, status }) });
      const foreign = await checkedError(await put(mn, "urn:node:OTHER", "completed"));
      assert.deepEqual([foreign.name, foreign.detailCode], ["NotAuthorized", "4720"]);
      assert.equal((await put(mn, "urn:node:MNR", "COMPLETED")).status, 200);
      const meta = await okXml(await call(admin, "GET", `/meta/${enc(pid)}`));
      assert.match(meta, /<replicationStatus>completed<\/replicationStatus>/);
      const back = await checkedError(await put(mn, "urn:node:MNR", "requested"));
      assert.deepEqual([back.name, back.detailCode], ["InvalidRequest", "4730"]);
      const bad = await checkedError(await put(admin, "urn:node:MNR", "done"));
      assert.equal(bad.name, "InvalidRequest");
      const resolved = await call(admin, "GET", `/resolve/${enc(pid)}`, { redirect: "manual" });
      assert.equal(resolved.status, 303);
      assert.match(await resolved.text(), /urn:node:MNR/);
      // No longer scheduled once completed.
      const ask = await call(
        admin,
        "GET",
        `/replicaAuthorizations/${enc(pid)}?targetNodeSubject=${encodeURIComponent(MN_SUBJECT)}`,
      );
      assert.equal(ask.status, 401);
    });

    it("deleteReplicationMetadata (CNs only) with the current serialVersion", async () => {
      const put = (c: Caller, nodeId: string, serialVersion: number) =>
        call(c, "PUT", `/removeReplicaMetadata/${enc(pid)}`, {
          body: form({ nodeId, serialVersion: String(serialVersion) }),
        });
      const stale = await checkedError(await put(admin, "urn:node:MNR", 99));
      assert.deepEqual([stale.name, stale.detailCode], ["VersionMismatch", "4955"]);
      const denied = await checkedError(await put(mn, "urn:node:MNR", await version()));
      assert.deepEqual([denied.name, denied.detailCode], ["NotAuthorized", "4954"]);
      assert.equal((await put(admin, "urn:node:MNR", await version())).status, 200);
      assert.doesNotMatch(
        await okXml(await call(admin, "GET", `/meta/${enc(pid)}`)),
        /urn:node:MNR<\/replicaMemberNode>/,
      );
      const none = await checkedError(await put(admin, "urn:node:MNR", await version()));
      assert.deepEqual([none.name, none.detailCode], ["InvalidRequest", "4952"]);
    });
  });
}
