/**
 * The CN's authoritative system metadata writes, both dialects: registerSystemMetadata (CNs and administrators;
 * the create rules), updateSystemMetadata (v2; serialVersion and replicas in the document ignored; immutable
 * fields refused), archive (private), and the reads over an object known by its metadata only.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { type Caller, call, checkedError, enc, form, okXml } from "../../helpers/clients/client.ts";
import { editSysmeta, elementText, sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, CN_SUBJECT, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const ALICE = "CN=Alice,O=d1node,C=US,DC=cilogon,DC=org";

for (const dialect of testDialects()) {
  describe(`CN authoritative system metadata (${dialect})`, () => {
    const node = withTestNode(dialect, { role: "cn", nodeId: "urn:node:TESTCN" });
    let admin: Caller;
    let cn: Caller;
    let alice: Caller;
    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      cn = { baseUrl: node.baseUrl, token: await node.token(CN_SUBJECT) };
      alice = { baseUrl: node.baseUrl, token: await node.token(ALICE) };
    });

    const register = (c: Caller, pid: string, xml: string) =>
      call(c, "POST", "/meta", { body: form({ pid, sysmeta: { xml } }) });
    const meta = async (pid: string) => okXml(await call(admin, "GET", `/meta/${enc(pid)}`));

    it("registerSystemMetadata: trusted callers, create rules, no duplicates; reads answer without bytes", async () => {
      const pid = uniquePid("regmeta");
      const xml = sysmetaXml(pid, Buffer.from("elsewhere"), { rightsHolder: ALICE, readers: ["public"] });
      const denied = await checkedError(await register(alice, pid, xml));
      assert.deepEqual([denied.name, denied.detailCode], ["NotAuthorized", "4861"]);
      const badFormat = await checkedError(
        await register(cn, pid, editSysmeta(xml, { formatId: "no/such" })),
      );
      assert.deepEqual([badFormat.name, badFormat.detailCode], ["InvalidSystemMetadata", "4864"]);
      assert.equal(elementText(await okXml(await register(cn, pid, xml)), "identifier"), pid);
      const again = await checkedError(await register(cn, pid, xml));
      assert.equal(again.name, "InvalidSystemMetadata");
      const head = await call(alice, "HEAD", `/object/${enc(pid)}`);
      assert.equal(head.status, 200);
      assert.equal(head.headers.get("content-length"), String("elsewhere".length));
      const checksum = await okXml(await call(alice, "GET", `/checksum/${enc(pid)}`));
      assert.match(checksum, /algorithm="SHA-1"/);
      const noLocation = await checkedError(await call(alice, "GET", `/resolve/${enc(pid)}`));
      assert.deepEqual([noLocation.name, noLocation.detailCode], ["NotFound", "4140"]);
    });

    it("updateSystemMetadata: CNs only; the document's serialVersion and replicas are ignored", async () => {
      const pid = uniquePid("upd");
      await okXml(await register(cn, pid, sysmetaXml(pid, Buffer.from("u"), { rightsHolder: ALICE })));
      const current = await meta(pid);
      const replica =
        "<replica><replicaMemberNode>urn:node:FAKE</replicaMemberNode><replicationStatus>completed</replicationStatus>" +
        "<replicaVerified>2026-01-01T00:00:00Z</replicaVerified></replica>";
      const changed = editSysmeta(current, { serialVersion: "41", fileName: "renamed.csv", replica });
      const put = (c: Caller, xml: string) =>
        call(c, "PUT", "/meta", { body: form({ pid, sysmeta: { xml } }) });
      const denied = await checkedError(await put(alice, changed));
      assert.deepEqual([denied.name, denied.detailCode], ["NotAuthorized", "4867"]);
      assert.equal((await put(cn, changed)).status, 200);
      const after = await meta(pid);
      assert.equal(elementText(after, "serialVersion"), "2");
      assert.equal(elementText(after, "fileName"), "renamed.csv");
      assert.doesNotMatch(after, /urn:node:FAKE/);
      const size = await checkedError(await put(cn, editSysmeta(after, { size: "999" })));
      assert.deepEqual([size.name, size.detailCode], ["InvalidRequest", "4869"]);
      assert.equal(elementText(await meta(pid), "serialVersion"), "2");
    });

    it("archive (private): administrators and CNs; archived stays readable", async () => {
      const pid = uniquePid("arch");
      await okXml(await register(cn, pid, sysmetaXml(pid, Buffer.from("a"), { readers: ["public"] })));
      const denied = await checkedError(await call(alice, "PUT", `/archive/${enc(pid)}`));
      assert.deepEqual([denied.name, denied.detailCode], ["NotAuthorized", "4970"]);
      assert.equal(
        elementText(await okXml(await call(cn, "PUT", `/archive/${enc(pid)}`)), "identifier"),
        pid,
      );
      assert.equal(elementText(await meta(pid), "archived"), "true");
      const missing = await checkedError(await call(cn, "PUT", `/archive/${enc(`${pid}.none`)}`));
      assert.deepEqual([missing.name, missing.detailCode], ["NotFound", "4971"]);
    });
  });
}
