/**
 * The federation's groundwork: a local CN with three MNs, registered and approved; nodes calling each other
 * authenticated as themselves (D1Client), remote exceptions rethrown as themselves.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { D1Error } from "../../src/errors/exceptions.ts";
import { clientFor } from "../../src/federation/client.ts";
import type { RunningNode } from "../../src/node/start.ts";
import { create, okXml } from "../helpers/clients/client.ts";
import { uniquePid } from "../helpers/data/sysmeta.ts";
import { startTestFederation, type TestFederation } from "../helpers/nodes/federation.ts";
import { testDialects } from "../helpers/nodes/node.ts";

const text = async (stream: NodeJS.ReadableStream) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString();
};

for (const dialect of testDialects()) {
  describe(`a local federation (${dialect})`, () => {
    let fed: TestFederation;
    before(async () => {
      fed = await startTestFederation(dialect, { worker: false });
    });
    after(() => fed?.close());
    const mn = (i: number) => fed.mns[i] as RunningNode;

    it("the administrator the token names has a verified account on the CN (getSubjectInfo)", async () => {
      const token = await fed.token(fed.adminSubject);
      const response = await fetch(`${fed.cn.baseUrl}/v2/accounts/${encodeURIComponent(fed.adminSubject)}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = await okXml(response);
      assert.ok(body.includes(`<subject>${fed.adminSubject}</subject>`), body);
      assert.match(body, /<verified>true<\/verified>/);
    });

    it("lists the CN and three approved MNs, each with its own URL", async () => {
      const nodes = await clientFor(mn(0).ctx, fed.cn.baseUrl).listNodes();
      const ids = nodes.map((n) => n.identifier).sort();
      assert.deepEqual(ids, [
        "urn:node:LOCALCN",
        "urn:node:LOCALMN1",
        "urn:node:LOCALMN2",
        "urn:node:LOCALMN3",
      ]);
      const mn2 = nodes.find((n) => n.identifier === "urn:node:LOCALMN2");
      assert.equal(mn2?.baseURL, mn(1).baseUrl);
      assert.equal(mn2?.type, "mn");
    });

    it("the CN reads an MN's objects, listings and log as a trusted node", async () => {
      const pid = uniquePid("fed-read");
      const admin = { baseUrl: mn(0).baseUrl, token: await fed.token(fed.adminSubject) };
      // Readable by its owner only: the CN's own subject is what lets it in.
      await okXml(await create(admin, pid, Buffer.from("a,b\n1,2\n"), { readers: ["CN=someone else"] }));
      const mn1 = clientFor(fed.cn.ctx, mn(0).baseUrl);
      const sysmeta = await mn1.getSystemMetadata(pid);
      assert.equal(sysmeta.identifier, pid);
      assert.equal(await text(await mn1.get(pid, sysmeta.size)), "a,b\n1,2\n");
      assert.equal((await mn1.getChecksum(pid, "MD5")).algorithm, "MD5");
      const listed = await mn1.listObjects({ fromDate: new Date(Date.now() - 60_000), count: 100 });
      assert.ok(listed.items.some((o) => o.identifier === pid));
      await mn(0).ctx.db.events.flush();
      const log = await mn1.getLogRecords({ fromDate: new Date(Date.now() - 60_000) });
      assert.ok(log.items.some((e) => e.identifier === pid && e.event === "create"));
      // CN-only callbacks are accepted from the CN.
      await mn1.systemMetadataChanged(pid, sysmeta.serialVersion ?? 1, new Date());
      await mn1.synchronizationFailed(pid, "a test failure report");
    });

    it("remote exceptions come back as themselves; an unreachable node is a ServiceFailure", async () => {
      const mn1 = clientFor(fed.cn.ctx, mn(0).baseUrl);
      await assert.rejects(mn1.getSystemMetadata("no-such-object"), (error: unknown) => {
        assert.ok(error instanceof D1Error);
        assert.equal(error.exception, "NotFound");
        assert.equal(error.pid, "no-such-object");
        return true;
      });
      // An MN may not call the CN-only callbacks of another MN.
      const asMn2 = clientFor(mn(1).ctx, mn(0).baseUrl);
      await assert.rejects(asMn2.systemMetadataChanged("x", 1, new Date()), { exception: "NotAuthorized" });
      const nowhere = clientFor(fed.cn.ctx, "http://127.0.0.1:9/mn", { timeoutMs: 2_000 });
      await assert.rejects(nowhere.getCapabilities(), (error: unknown) => {
        assert.ok(error instanceof D1Error);
        assert.equal(error.exception, "ServiceFailure");
        assert.match(error.description, /could not be reached/);
        return true;
      });
    });
  });
}
