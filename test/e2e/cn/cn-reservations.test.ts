/**
 * CNCore identifier rules on a real CN, both dialects: reserveIdentifier (both request forms), hasReservation
 * (200 / NotAuthorized / NotFound as the CN error rules say, both forms), generateIdentifier reserving its id,
 * reservations binding create to the reserving principal, delete leaving the identifier in use, and
 * setObsoletedBy's serialVersion check. Every XML answer is checked against the XSDs.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { type Caller, call, checkedError, create, enc, form, okXml } from "../../helpers/clients/client.ts";
import { elementText, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const ALICE = "CN=Alice,O=d1node,C=US,DC=cilogon,DC=org";
const BOB = "CN=Bob,O=d1node,C=US,DC=cilogon,DC=org";

for (const dialect of testDialects()) {
  describe(`CN reservations and identifiers (${dialect})`, () => {
    const node = withTestNode(dialect, { role: "cn", nodeId: "urn:node:TESTCN" });
    let admin: Caller;
    let alice: Caller;
    let bob: Caller;
    let anonymous: Caller;
    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      alice = { baseUrl: node.baseUrl, token: await node.token(ALICE) };
      bob = { baseUrl: node.baseUrl, token: await node.token(BOB) };
      anonymous = { baseUrl: node.baseUrl };
    });

    const reserve = (c: Caller, pid: string) => call(c, "POST", "/reserve", { body: form({ id: pid }) });
    const has = (c: Caller, pid: string, subject: string) =>
      call(c, "GET", `/reserve/${enc(pid)}?subject=${encodeURIComponent(subject)}`);

    it("reserves with the id or pid part, on /reserve or /reserve/{pid}; a second reservation is refused", async () => {
      const first = uniquePid("res/a+b");
      assert.equal(elementText(await okXml(await reserve(alice, first)), "identifier"), first);
      const second = uniquePid("res");
      const viaPath = await call(alice, "POST", `/reserve/${enc(second)}`, { body: form({ pid: second }) });
      assert.equal(elementText(await okXml(viaPath), "identifier"), second);
      const again = await checkedError(await reserve(bob, first));
      assert.deepEqual([again.name, again.detailCode], ["IdentifierNotUnique", "4210"]);
      const anon = await checkedError(await reserve(anonymous, uniquePid("res")));
      assert.deepEqual([anon.name, anon.detailCode], ["NotAuthorized", "4180"]);
      // MetacatUI posts the pid form-encoded (CollectionModel.reserveSeriesId).
      const third = uniquePid("res+form&x=1");
      const formEncoded = await call(alice, "POST", "/reserve", {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ pid: third }).toString(),
      });
      assert.equal(elementText(await okXml(formEncoded), "identifier"), third);
    });

    it("hasReservation: owner 200 (query and path forms), other owner NotAuthorized, unknown NotFound", async () => {
      const pid = uniquePid("has/x");
      await okXml(await reserve(alice, pid));
      assert.equal((await has(alice, pid, ALICE)).status, 200);
      assert.equal(
        (await call(alice, "GET", `/reserve/${enc(pid)}/${encodeURIComponent(ALICE)}`)).status,
        200,
      );
      const other = await checkedError(await has(bob, pid, BOB));
      assert.deepEqual([other.name, other.detailCode], ["NotAuthorized", "4924"]);
      const noAuthority = await checkedError(await has(bob, pid, ALICE));
      assert.equal(noAuthority.name, "NotAuthorized");
      const unknown = await checkedError(await has(alice, uniquePid("none"), ALICE));
      assert.deepEqual([unknown.name, unknown.detailCode], ["NotFound", "4923"]);
    });

    it("generateIdentifier gives a reserved UUID; a bad scheme is InvalidRequest", async () => {
      const body = await okXml(await call(alice, "POST", "/generate", { body: form({ scheme: "UUID" }) }));
      const id = elementText(body, "identifier") ?? "";
      assert.match(id, /^urn:uuid:[0-9a-f-]{36}$/);
      assert.equal((await has(alice, id, ALICE)).status, 200);
      const bad = await checkedError(
        await call(alice, "POST", "/generate", { body: form({ scheme: "DOI" }) }),
      );
      assert.deepEqual([bad.name, bad.detailCode], ["InvalidRequest", "4200"]);
    });

    it("a reserved identifier can only be created by its reserving principal", async () => {
      const pid = uniquePid("bound");
      await okXml(await reserve(alice, pid));
      const refused = await checkedError(await create(admin, pid, Buffer.from("x")));
      assert.deepEqual([refused.name, refused.detailCode], ["NotAuthorized", "1100"]);
      assert.equal((await call(admin, "GET", `/meta/${enc(pid)}`)).status, 404);
      const own = await create(admin, uniquePid("free"), Buffer.from("y"));
      assert.equal(own.status, 200, await own.text());
    });

    it("the reserving principal creates its identifier, which then is no longer a reservation", async () => {
      const pid = uniquePid("own");
      await okXml(await reserve(admin, pid));
      await okXml(await create(admin, pid, Buffer.from("mine")));
      assert.equal(await node.node.ctx.db.cn.reservation(pid), undefined);
      assert.equal((await checkedError(await has(admin, pid, ADMIN))).name, "NotAuthorized");
    });

    it("concurrent reservations of one identifier: exactly one wins", async () => {
      const pid = uniquePid("race");
      const callers = await Promise.all(
        Array.from({ length: 8 }, async (_, i) => ({
          baseUrl: node.baseUrl,
          token: await node.token(`CN=racer${i}`),
        })),
      );
      const statuses = (await Promise.all(callers.map((c) => reserve(c, pid)))).map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 200).length, 1, `statuses ${statuses}`);
      assert.equal(statuses.filter((s) => s === 409).length, 7, `statuses ${statuses}`);
    });

    it("create is for administrators; delete keeps the identifier in use", async () => {
      const pid = uniquePid("del");
      const denied = await checkedError(await create(alice, pid, Buffer.from("z")));
      assert.deepEqual([denied.name, denied.detailCode], ["NotAuthorized", "1100"]);
      await okXml(await create(admin, pid, Buffer.from("z"), { readers: ["public"] }));
      const aliceDelete = await checkedError(await call(alice, "DELETE", `/object/${enc(pid)}`));
      assert.deepEqual([aliceDelete.name, aliceDelete.detailCode], ["NotAuthorized", "4960"]);
      await okXml(await call(admin, "DELETE", `/object/${enc(pid)}`));
      assert.equal((await checkedError(await call(alice, "GET", `/resolve/${enc(pid)}`))).name, "NotFound");
      const reuse = await checkedError(await reserve(alice, pid));
      assert.equal(reuse.name, "IdentifierNotUnique");
      const recreate = await checkedError(await create(admin, pid, Buffer.from("z")));
      assert.deepEqual([recreate.name, recreate.detailCode], ["IdentifierNotUnique", "1120"]);
      assert.equal((await checkedError(await has(alice, pid, ALICE))).name, "NotAuthorized");
    });

    it("setObsoletedBy checks serialVersion: a mismatch changes nothing", async () => {
      const pid = uniquePid("obs");
      await okXml(await create(admin, pid, Buffer.from("o"), { readers: ["public"] }));
      const put = (serialVersion: number) =>
        call(admin, "PUT", `/obsoletedBy/${enc(pid)}`, {
          body: form({ obsoletedByPid: `${pid}.next`, serialVersion: String(serialVersion) }),
        });
      const stale = await checkedError(await put(7));
      assert.deepEqual([stale.name, stale.detailCode], ["VersionMismatch", "4946"]);
      const unchanged = await okXml(await call(admin, "GET", `/meta/${enc(pid)}`));
      assert.equal(elementText(unchanged, "obsoletedBy"), undefined);
      assert.equal(elementText(unchanged, "serialVersion"), "1");
      assert.equal((await put(1)).status, 200);
      const changed = await okXml(await call(admin, "GET", `/meta/${enc(pid)}`));
      assert.equal(elementText(changed, "obsoletedBy"), `${pid}.next`);
      assert.equal(elementText(changed, "serialVersion"), "2");
    });

    it("getLogRecords is a valid Log of the CN's own events (before any Member Node log is aggregated)", async () => {
      const body = await okXml(await call(admin, "GET", "/log?start=0&count=10"));
      assert.match(body, /<event>create<\/event>/);
      assert.doesNotMatch(body, /<nodeIdentifier>(?!urn:node:TESTCN<)/);
    });
  });
}
