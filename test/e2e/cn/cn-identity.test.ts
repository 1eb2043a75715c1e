/**
 * CNIdentity on a real CN, both dialects: accounts (register, update, verify, getSubjectInfo, listSubjects),
 * the two-step identity mapping (request, pending, confirm / deny, remove in both directions), groups (create,
 * update by rights holders only, members replaced), and the CN's own sessions expanded from these tables.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { type Caller, call, checkedError, create, enc, form, okXml } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const ALICE = "CN=Alice Smith,O=d1node,C=US,DC=cilogon,DC=org";
const BOB = "CN=Bob Jones,O=d1node,C=US,DC=cilogon,DC=org";
const CAROL = "CN=Carol,O=d1node,C=US,DC=cilogon,DC=org";
const GROUP = "CN=readers-group,DC=dataone,DC=org";
const V1 = 'xmlns:d1="http://ns.dataone.org/service/types/v1"';

const person = (subject: string, given: string, family: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><d1:person ${V1}><subject>${subject}</subject><givenName>${given}</givenName><familyName>${family}</familyName></d1:person>`;
const group = (name: string, members: string[], holders: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><d1:group ${V1}><subject>${GROUP}</subject><groupName>${name}</groupName>${members
    .map((m) => `<hasMember>${m}</hasMember>`)
    .join("")}${holders.map((h) => `<rightsHolder>${h}</rightsHolder>`).join("")}</d1:group>`;

for (const dialect of testDialects()) {
  describe(`CNIdentity (${dialect})`, () => {
    const node = withTestNode(dialect, { role: "cn", nodeId: "urn:node:TESTCN" });
    let admin: Caller;
    let alice: Caller;
    let bob: Caller;
    let carol: Caller;
    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      alice = { baseUrl: node.baseUrl, token: await node.token(ALICE) };
      bob = { baseUrl: node.baseUrl, token: await node.token(BOB) };
      carol = { baseUrl: node.baseUrl, token: await node.token(CAROL) };
    });

    const info = async (subject: string) => okXml(await call(admin, "GET", `/accounts/${enc(subject)}`));
    const canRead = async (c: Caller, pid: string) =>
      (await call(c, "GET", `/meta/${enc(pid)}`)).status === 200;

    it("accounts: register own subject only, once; update; verify by administrators; list and filter", async () => {
      const reg = (c: Caller, xml: string) =>
        call(c, "POST", "/accounts", { body: form({ person: { xml } }) });
      assert.match(await okXml(await reg(alice, person(ALICE, "Alice", "Smith"))), /Alice Smith/);
      await okXml(await reg(bob, person(BOB, "Bob", "Jones")));
      await okXml(await reg(carol, person(CAROL, "Carol", "King")));
      const again = await checkedError(await reg(alice, person(ALICE, "Alice", "Smith")));
      assert.deepEqual([again.name, again.detailCode], ["IdentifierNotUnique", "4521"]);
      const other = await checkedError(await reg(bob, person("CN=Someone", "S", "O")));
      assert.deepEqual([other.name, other.detailCode], ["NotAuthorized", "4525"]);

      const update = await call(alice, "PUT", `/accounts/${enc(ALICE)}`, {
        body: form({ person: { xml: person(ALICE, "Alicia", "Smith") } }),
      });
      await okXml(update);
      assert.match(await info(ALICE), /<givenName>Alicia<\/givenName>/);
      const notOwn = await checkedError(
        await call(bob, "PUT", `/accounts/${enc(ALICE)}`, {
          body: form({ person: { xml: person(ALICE, "X", "Y") } }),
        }),
      );
      assert.deepEqual([notOwn.name, notOwn.detailCode], ["NotAuthorized", "4534"]);

      const denied = await checkedError(await call(bob, "PUT", `/accounts/verification/${enc(BOB)}`));
      assert.deepEqual([denied.name, denied.detailCode], ["NotAuthorized", "4541"]);
      assert.equal((await call(admin, "PUT", `/accounts/verification/${enc(BOB)}`)).status, 200);
      assert.match(await info(BOB), /<verified>true<\/verified>/);

      const smith = await okXml(await call(admin, "GET", "/accounts?query=SMITH"));
      assert.match(smith, /Alice Smith/);
      assert.doesNotMatch(smith, /Bob Jones/);
      const verified = await okXml(await call(admin, "GET", "/accounts?query=&status=verified"));
      assert.match(verified, /Bob Jones/);
      assert.doesNotMatch(verified, /Alice Smith/);
      const page = await okXml(await call(admin, "GET", "/accounts?query=&start=1&count=1"));
      assert.equal((page.match(/<person>/g) ?? []).length, 1);
      const missing = await checkedError(await call(admin, "GET", `/accounts/${enc("CN=nobody")}`));
      assert.deepEqual([missing.name, missing.detailCode], ["NotFound", "4564"]);
    });

    it("two-step mapping: request, pending, confirm; sessions then stand for both; remove undoes both", async () => {
      const pid = uniquePid("mapped");
      await okXml(await create(admin, pid, Buffer.from("m"), { rightsHolder: ADMIN, readers: [BOB] }));
      assert.equal(await canRead(alice, pid), false);

      const self = await checkedError(
        await call(alice, "POST", "/accounts/pendingmap", { body: form({ subject: ALICE }) }),
      );
      assert.deepEqual([self.name, self.detailCode], ["IdentifierNotUnique", "2343"]);
      assert.equal(
        (await call(alice, "POST", "/accounts/pendingmap", { body: form({ subject: BOB }) })).status,
        200,
      );
      const pending = await okXml(await call(bob, "GET", `/accounts/pendingmap/${enc(BOB)}`));
      assert.match(pending, /Alice Smith/);
      const notYours = await checkedError(await call(carol, "PUT", `/accounts/pendingmap/${enc(ALICE)}`));
      assert.deepEqual([notYours.name, notYours.detailCode], ["NotFound", "2340"]);
      assert.equal((await call(bob, "PUT", `/accounts/pendingmap/${enc(ALICE)}`)).status, 200);

      assert.match(await info(ALICE), new RegExp(`<equivalentIdentity>${BOB}</equivalentIdentity>`));
      assert.match(await info(BOB), new RegExp(`<equivalentIdentity>${ALICE}</equivalentIdentity>`));
      assert.equal(await canRead(alice, pid), true);

      assert.equal((await call(bob, "DELETE", `/accounts/map/${enc(ALICE)}`)).status, 200);
      assert.doesNotMatch(await info(ALICE), /equivalentIdentity/);
      assert.doesNotMatch(await info(BOB), /equivalentIdentity/);
      assert.equal(await canRead(alice, pid), false);
      const gone = await checkedError(await call(bob, "DELETE", `/accounts/map/${enc(ALICE)}`));
      assert.deepEqual([gone.name, gone.detailCode], ["NotFound", "2340"]);
    });

    it("a denied request maps nothing; mapIdentity is for administrators", async () => {
      assert.equal(
        (await call(carol, "POST", "/accounts/pendingmap", { body: form({ subject: BOB }) })).status,
        200,
      );
      assert.equal((await call(bob, "DELETE", `/accounts/pendingmap/${enc(CAROL)}`)).status, 200);
      assert.doesNotMatch(await info(CAROL), /equivalentIdentity/);
      const confirmLate = await checkedError(await call(bob, "PUT", `/accounts/pendingmap/${enc(CAROL)}`));
      assert.equal(confirmLate.name, "NotFound");
      const parts = { primarySubject: CAROL, secondarySubject: BOB };
      const denied = await checkedError(await call(carol, "POST", "/accounts/map", { body: form(parts) }));
      assert.deepEqual([denied.name, denied.detailCode], ["NotAuthorized", "2360"]);
      assert.equal((await call(admin, "POST", "/accounts/map", { body: form(parts) })).status, 200);
      assert.match(await info(CAROL), new RegExp(`<equivalentIdentity>${BOB}</equivalentIdentity>`));
      const twice = await checkedError(await call(admin, "POST", "/accounts/map", { body: form(parts) }));
      assert.deepEqual([twice.name, twice.detailCode], ["IdentifierNotUnique", "2343"]);
    });

    it("groups: unique, members replaced by rights holders only; membership grants access", async () => {
      const pid = uniquePid("grouped");
      await okXml(await create(admin, pid, Buffer.from("g"), { rightsHolder: ADMIN, readers: [GROUP] }));
      const made = await call(alice, "POST", "/groups", {
        body: form({ group: { xml: group("Readers", [BOB], [ALICE]) } }),
      });
      assert.match(await okXml(made), /readers-group/);
      const dup = await checkedError(
        await call(bob, "POST", "/groups", { body: form({ group: { xml: group("Readers", [], [BOB]) } }) }),
      );
      assert.deepEqual([dup.name, dup.detailCode], ["IdentifierNotUnique", "2400"]);
      assert.equal(await canRead(bob, pid), true);
      assert.match(await info(BOB), new RegExp(`<isMemberOf>${GROUP}</isMemberOf>`));

      const put = (c: Caller, xml: string) => call(c, "PUT", "/groups", { body: form({ group: { xml } }) });
      const byMember = await checkedError(await put(bob, group("Readers", [BOB, CAROL], [ALICE])));
      assert.deepEqual([byMember.name, byMember.detailCode], ["NotAuthorized", "2560"]);
      const rename = await checkedError(await put(alice, group("Renamed", [], [ALICE])));
      assert.deepEqual([rename.name, rename.detailCode], ["InvalidRequest", "2542"]);
      // Not Carol: Bob stands for Carol since the administrator mapped them above.
      const dave = "CN=Dave,DC=org";
      assert.equal((await put(alice, group("Readers", [dave], [ALICE]))).status, 200);
      const stored = await info(GROUP);
      assert.match(stored, new RegExp(`<hasMember>${dave}</hasMember>`));
      assert.doesNotMatch(stored, new RegExp(`<hasMember>${BOB}</hasMember>`));
      assert.equal(await canRead(bob, pid), false);
      assert.match(await okXml(await call(admin, "GET", "/accounts?query=readers")), /readers-group/);
    });
  });
}
