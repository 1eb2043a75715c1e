/** MNStorage over a real listening node: create/update/archive/delete rules, SIDs, updateSystemMetadata. */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { type Caller, call, create, enc, errorOf, form, update } from "../../helpers/clients/client.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, CN_SUBJECT, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const USER = "CN=Some User,DC=example,DC=org";
const data = (s: string) => Buffer.from(`${s}\n`);

for (const dialect of testDialects()) {
  describe(`MNStorage (${dialect})`, () => {
    const node = withTestNode(dialect);
    let admin: Caller;
    let user: Caller;
    let anon: Caller;
    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      user = { baseUrl: node.baseUrl, token: await node.token(USER) };
      anon = { baseUrl: node.baseUrl };
    });

    const sysmetaOf = async (c: Caller, pid: string) => (await call(c, "GET", `/meta/${enc(pid)}`)).text();

    it("create needs an authenticated submitter", async () => {
      const refused = await errorOf(await create(anon, uniquePid(), data("x")));
      assert.equal(refused.name, "NotAuthorized");
      assert.equal(refused.detailCode, "1100");
      assert.equal((await create(user, uniquePid(), data("x"), { rightsHolder: USER })).status, 200);
    });

    it("create rejects a duplicate pid, unknown formats, obsoletes and whitespace identifiers", async () => {
      const pid = uniquePid();
      assert.equal((await create(user, pid, data("a"))).status, 200);
      const duplicate = await errorOf(await create(user, pid, data("b")));
      assert.equal(duplicate.name, "IdentifierNotUnique");
      assert.equal(duplicate.detailCode, "1120");
      const format = await errorOf(
        await create(user, uniquePid(), data("c"), { formatId: "no/such-format" }),
      );
      assert.equal(format.name, "InvalidSystemMetadata");
      assert.match(format.body, /formatId/);
      const obsoletes = await errorOf(await create(user, uniquePid(), data("d"), { obsoletes: pid }));
      assert.equal(obsoletes.name, "InvalidSystemMetadata");
      for (const bad of ["has space", "x".repeat(801)]) {
        const response = await errorOf(await create(user, bad, data("e")));
        assert.ok(["InvalidRequest", "InvalidSystemMetadata"].includes(response.name), response.body);
      }
    });

    it("update: obsoletes must match, no branching, newPid unique, SID continues the series", async () => {
      const sid = uniquePid("sid");
      const p1 = uniquePid("p1");
      const p2 = uniquePid("p2");
      assert.equal((await create(user, p1, data("v1"), { rightsHolder: USER, seriesId: sid })).status, 200);
      const wrong = await errorOf(
        await update(user, p1, p2, data("v2"), { rightsHolder: USER, obsoletes: "other" }),
      );
      assert.equal(wrong.name, "InvalidSystemMetadata");
      assert.equal(wrong.detailCode, "1300");
      const withBy = await errorOf(
        await update(user, p1, p2, data("v2"), { rightsHolder: USER, obsoletedBy: "x" }),
      );
      assert.equal(withBy.name, "InvalidSystemMetadata");
      const ok = await update(user, p1, p2, data("v2"), { rightsHolder: USER, seriesId: sid });
      assert.equal(ok.status, 200, await ok.text());
      assert.match(await sysmetaOf(user, p1), new RegExp(`<obsoletedBy>${p2}</obsoletedBy>`));
      assert.match(await sysmetaOf(user, p2), new RegExp(`<obsoletes>${p1}</obsoletes>`));
      assert.match(await sysmetaOf(user, sid), new RegExp(`<identifier>${p2}</identifier>`));
      assert.equal(await (await call(user, "GET", `/object/${enc(sid)}`)).text(), "v2\n");
      const branch = await errorOf(await update(user, p1, uniquePid(), data("v3"), { rightsHolder: USER }));
      assert.equal(branch.name, "InvalidSystemMetadata");
      const taken = await errorOf(await update(user, p2, p1, data("v3"), { rightsHolder: USER }));
      assert.equal(taken.name, "IdentifierNotUnique");
      const list = await (await call(user, "GET", `/object?identifier=${encodeURIComponent(sid)}`)).text();
      assert.match(list, /count="2"/);
    });

    it("a SID cannot be reused by another chain once its series has moved on", async () => {
      const s1 = uniquePid("s1");
      const s2 = uniquePid("s2");
      const [a, b, c] = [uniquePid("a"), uniquePid("b"), uniquePid("c")];
      assert.equal((await create(user, a, data("a"), { rightsHolder: USER, seriesId: s1 })).status, 200);
      assert.equal((await update(user, a, b, data("b"), { rightsHolder: USER, seriesId: s2 })).status, 200);
      const reuse = await errorOf(await update(user, b, c, data("c"), { rightsHolder: USER, seriesId: s1 }));
      assert.equal(reuse.name, "InvalidSystemMetadata");
      const other = await errorOf(
        await create(user, uniquePid(), data("d"), { rightsHolder: USER, seriesId: s2 }),
      );
      assert.equal(other.name, "InvalidSystemMetadata");
    });

    it("archive keeps the bytes, needs changePermission, and blocks updates", async () => {
      const pid = uniquePid();
      assert.equal((await create(user, pid, data("arch"), { rightsHolder: USER })).status, 200);
      const refused = await errorOf(await call(anon, "PUT", `/archive/${enc(pid)}`));
      assert.equal(refused.name, "NotAuthorized");
      assert.equal(refused.detailCode, "2910");
      assert.equal((await call(user, "PUT", `/archive/${enc(pid)}`)).status, 200);
      assert.match(await sysmetaOf(user, pid), /<archived>true<\/archived>/);
      assert.equal(await (await call(anon, "GET", `/object/${enc(pid)}`)).text(), "arch\n");
      const blocked = await errorOf(
        await update(user, pid, uniquePid(), data("new"), { rightsHolder: USER }),
      );
      assert.equal(blocked.name, "InvalidRequest");
      assert.equal(blocked.detailCode, "1202");
      const missing = await errorOf(await call(user, "PUT", "/archive/not-here"));
      assert.equal(missing.name, "NotFound");
      assert.equal(missing.detailCode, "2911");
    });

    it("delete is for administrators and CNs; the object is gone afterwards", async () => {
      const pid = uniquePid();
      assert.equal((await create(user, pid, data("del"), { rightsHolder: USER })).status, 200);
      const refused = await errorOf(await call(user, "DELETE", `/object/${enc(pid)}`));
      assert.equal(refused.name, "NotAuthorized");
      assert.equal(refused.detailCode, "2900");
      assert.equal((await call(admin, "DELETE", `/object/${enc(pid)}`)).status, 200);
      assert.equal((await call(admin, "GET", `/object/${enc(pid)}`)).status, 404);
      assert.equal((await errorOf(await call(admin, "DELETE", `/object/${enc(pid)}`))).detailCode, "2901");
    });

    it("generateIdentifier gives UUIDs and refuses other schemes", async () => {
      const ok = await call(user, "POST", "/generate", { body: form({ scheme: "UUID" }) });
      assert.match(await ok.text(), /urn:uuid:[0-9a-f-]{36}/);
      const bad = await errorOf(await call(user, "POST", "/generate", { body: form({ scheme: "DOI" }) }));
      assert.equal(bad.name, "InvalidRequest");
      assert.equal(bad.detailCode, "2193");
    });

    it("updateSystemMetadata: serialVersion check, immutable fields, mutable access policy", async () => {
      const pid = uniquePid();
      const bytes = data("meta");
      assert.equal((await create(user, pid, bytes, { rightsHolder: USER })).status, 200);
      const put = (options: Parameters<typeof sysmetaXml>[2], id = pid) =>
        call(user, "PUT", "/meta", {
          body: form({ pid: id, sysmeta: { xml: sysmetaXml(pid, bytes, options) } }),
        });
      const base = {
        rightsHolder: USER,
        serialVersion: 1,
        extra: "<originMemberNode>urn:node:TESTMN</originMemberNode>",
      };
      const stale = await errorOf(await put({ ...base, serialVersion: 7, readers: ["public", USER] }));
      assert.equal(stale.name, "InvalidRequest");
      assert.equal(stale.detailCode, "4869");
      const size = await errorOf(await put({ ...base, size: 99 }));
      assert.equal(size.name, "InvalidRequest");
      const origin = await errorOf(await put({ ...base, extra: "" }));
      assert.equal(origin.name, "InvalidRequest");
      const mismatch = await errorOf(await put(base, uniquePid()));
      assert.equal(mismatch.name, "InvalidRequest");
      const ok = await put({ ...base, readers: ["public", "CN=reader"] });
      assert.equal(ok.status, 200, await ok.text());
      const after = await sysmetaOf(user, pid);
      assert.match(after, /<serialVersion>2<\/serialVersion>/);
      assert.match(after, /CN=reader/);
      const cnCaller = { baseUrl: node.baseUrl, token: await node.token(CN_SUBJECT) };
      const dirty = await errorOf(
        await call(cnCaller, "POST", "/dirtySystemMetadata", {
          body: form({
            id: "nothing-here",
            serialVersion: "3",
            dateSysMetaLastModified: "2026-01-01T00:00:00Z",
          }),
        }),
      );
      assert.equal(dirty.name, "InvalidRequest");
      assert.equal(dirty.detailCode, "1334");
      const notCn = await errorOf(
        await call(user, "POST", "/dirtySystemMetadata", {
          body: form({ id: pid, serialVersion: "3", dateSysMetaLastModified: "2026-01-01T00:00:00Z" }),
        }),
      );
      assert.equal(notCn.name, "NotAuthorized");
    });
  });
}
