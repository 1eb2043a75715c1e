/**
 * CNAuthorization on a real CN, both dialects: isAuthorized over the authoritative copy; setAccessPolicy and
 * setRightsHolder need changePermission and the current serialVersion (VersionMismatch otherwise, nothing
 * changed); of concurrent setAccessPolicy calls with the same serialVersion exactly one wins.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { type Caller, call, checkedError, create, enc, form, okXml } from "../../helpers/clients/client.ts";
import { elementText, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const ALICE = "CN=Alice,O=d1node,C=US,DC=cilogon,DC=org";
const BOB = "CN=Bob,O=d1node,C=US,DC=cilogon,DC=org";

const policy = (subject: string, permission: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><d1:accessPolicy xmlns:d1="http://ns.dataone.org/service/types/v1"><allow><subject>${subject}</subject><permission>${permission}</permission></allow></d1:accessPolicy>`;

for (const dialect of testDialects()) {
  describe(`CNAuthorization (${dialect})`, () => {
    const node = withTestNode(dialect, { role: "cn", nodeId: "urn:node:TESTCN" });
    let admin: Caller;
    let alice: Caller;
    let bob: Caller;
    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      alice = { baseUrl: node.baseUrl, token: await node.token(ALICE) };
      bob = { baseUrl: node.baseUrl, token: await node.token(BOB) };
    });

    const newObject = async () => {
      const pid = uniquePid("authz");
      await okXml(await create(admin, pid, Buffer.from("p"), { rightsHolder: ALICE, readers: [] }));
      return pid;
    };
    const meta = async (pid: string) => okXml(await call(admin, "GET", `/meta/${enc(pid)}`));
    const setPolicy = (c: Caller, pid: string, xml: string, serialVersion: number) =>
      call(c, "PUT", `/accessRules/${enc(pid)}`, {
        body: form({ accessPolicy: { xml }, serialVersion: String(serialVersion) }),
      });

    it("setAccessPolicy: changePermission and the current serialVersion; isAuthorized follows", async () => {
      const pid = await newObject();
      const before = await meta(pid);
      const denied = await checkedError(await call(bob, "GET", `/isAuthorized/${enc(pid)}?action=read`));
      assert.deepEqual([denied.status, denied.name, denied.detailCode], [401, "NotAuthorized", "1820"]);
      const notOwner = await checkedError(await setPolicy(bob, pid, policy(BOB, "write"), 1));
      assert.deepEqual([notOwner.name, notOwner.detailCode], ["NotAuthorized", "4420"]);
      const stale = await checkedError(await setPolicy(alice, pid, policy(BOB, "write"), 5));
      assert.deepEqual([stale.status, stale.name, stale.detailCode], [409, "VersionMismatch", "4403"]);
      assert.equal(await meta(pid), before);
      assert.equal((await setPolicy(alice, pid, policy(BOB, "write"), 1)).status, 200);
      const after = await meta(pid);
      assert.equal(elementText(after, "serialVersion"), "2");
      assert.notEqual(
        elementText(after, "dateSysMetadataModified"),
        elementText(before, "dateSysMetadataModified"),
      );
      assert.equal((await call(bob, "GET", `/isAuthorized/${enc(pid)}?action=write`)).status, 200);
      const missing = await checkedError(
        await call(bob, "GET", `/isAuthorized/${enc(`${pid}.none`)}?action=read`),
      );
      assert.deepEqual([missing.name, missing.detailCode], ["NotFound", "1800"]);
    });

    it("setRightsHolder: VersionMismatch on a stale serialVersion; returns the identifier", async () => {
      const pid = await newObject();
      const put = (serialVersion: number) =>
        call(alice, "PUT", `/owner/${enc(pid)}`, {
          body: form({ userId: BOB, serialVersion: String(serialVersion) }),
        });
      const stale = await checkedError(await put(2));
      assert.deepEqual([stale.name, stale.detailCode], ["VersionMismatch", "4443"]);
      assert.equal(elementText(await okXml(await put(1)), "identifier"), pid);
      assert.equal(elementText(await meta(pid), "rightsHolder"), BOB);
      const former = await checkedError(await put(2));
      assert.deepEqual([former.name, former.detailCode], ["NotAuthorized", "4440"]);
    });

    it("concurrent setAccessPolicy calls with the same serialVersion: exactly one wins", async () => {
      for (let round = 0; round < 3; round++) {
        const pid = await newObject();
        const subjects = Array.from({ length: 8 }, (_, i) => `CN=reader${i},DC=org`);
        const responses = await Promise.all(subjects.map((s) => setPolicy(alice, pid, policy(s, "read"), 1)));
        const statuses = responses.map((r) => r.status);
        assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses ${statuses}`);
        for (const response of responses.filter((r) => r.status !== 200)) {
          assert.equal((await checkedError(response)).name, "VersionMismatch");
        }
        const winner = subjects[statuses.indexOf(200)] as string;
        const stored = await meta(pid);
        assert.equal(elementText(stored, "serialVersion"), "2");
        assert.match(stored, new RegExp(`<subject>${winner}</subject>`));
        assert.equal((stored.match(/<allow>/g) ?? []).length, 1);
      }
    });
  });
}
