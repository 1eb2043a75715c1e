/**
 * Who a registered node may claim to be, on a real CN, both dialects: register takes Member Nodes only (a
 * document of type "cn" is InvalidRequest); a node may not hold a symbolic subject, another node's, the CN's or an
 * administrator's, neither when it registers nor through updateNodeCapabilities; a new subject of an approved node
 * waits for an administrator's approval while the old one stays in force; a Coordinating Node registered before
 * these rules is not listed, so Member Nodes learning their CNs from listNodes never trust it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { approveNode } from "../../../src/services/cn/register.ts";
import { type Caller, call, checkedError, form, okXml } from "../../helpers/clients/client.ts";
import { ADMIN, startTestNode, type TestNode, testDialects } from "../../helpers/nodes/node.ts";

const subjectOf = (id: string) => `CN=${id},DC=dataone,DC=org`;

function nodeXml(id: string, subjects: string[], type = "mn"): string {
  const host = id.slice("urn:node:".length).toLowerCase();
  const subjectElements = subjects.map((s) => `<subject>${s}</subject>`).join("");
  return `<?xml version="1.0" encoding="UTF-8"?><d1:node xmlns:d1="http://ns.dataone.org/service/types/v2.0" replicate="false" synchronize="false" type="${type}" state="up"><identifier>${id}</identifier><name>${id}</name><description>A test node</description><baseURL>https://${host}.example.org/mn</baseURL><services><service name="MNCore" version="v2" available="true"/></services>${subjectElements}<contactSubject>${subjects[0] ?? "CN=x"}</contactSubject></d1:node>`;
}

for (const dialect of testDialects()) {
  describe(`CN registry trust (${dialect})`, () => {
    let cn: TestNode;
    let admin: Caller;
    const caller = async (subject: string): Promise<Caller> => ({
      baseUrl: cn.baseUrl,
      token: await cn.token(subject),
    });
    const register = async (subject: string, xml: string) =>
      call(await caller(subject), "POST", "/node", { body: form({ node: { xml } }) });
    const update = async (subject: string, id: string, xml: string) =>
      call(await caller(subject), "PUT", `/node/${id}`, { body: form({ node: { xml } }) });
    const subjectsOf = async (id: string) =>
      [
        ...(await okXml(await call(admin, "GET", `/node/${id}`))).matchAll(/<subject>([^<]+)<\/subject>/g),
      ].map((m) => m[1]);

    before(async () => {
      cn = await startTestNode(dialect, { role: "cn", nodeId: "urn:node:TRUSTCN" });
      admin = await caller(ADMIN);
      for (const id of ["urn:node:MNONE", "urn:node:MNTWO"]) {
        assert.equal((await register(subjectOf(id), nodeXml(id, [subjectOf(id)]))).status, 200);
        assert.equal(await approveNode(cn.node.ctx.db, id), true);
      }
    });
    after(() => cn.close());

    it("register refuses a Coordinating Node: InvalidRequest saying why, nothing stored", async () => {
      const id = "urn:node:ROGUECN";
      const error = await checkedError(await register(subjectOf(id), nodeXml(id, [subjectOf(id)], "cn")));
      assert.equal(error.name, "InvalidRequest");
      assert.match(error.body, /Member Nodes \(type="mn"\) only/);
      assert.equal(await cn.node.ctx.db.cn.node(id), undefined);
    });

    it("register refuses symbolic subjects, another node's, the CN's and an administrator's", async () => {
      const id = "urn:node:GREEDY";
      for (const [subject, why] of [
        ["public", /stands for every caller/],
        ["authenticatedUser", /stands for every caller/],
        ["verifiedUser", /stands for every caller/],
        [subjectOf("urn:node:MNONE"), /subject of node urn:node:MNONE/],
        [ADMIN, /administrator/],
        [cn.node.ctx.config.nodeSubject, /this Coordinating Node/],
      ] as const) {
        const error = await checkedError(
          await register(subjectOf(id), nodeXml(id, [subjectOf(id), subject])),
        );
        assert.equal(error.name, "InvalidRequest", `${subject}: ${error.body}`);
        assert.match(error.body, why, subject);
      }
      assert.equal(await cn.node.ctx.db.cn.node(id), undefined);
    });

    it("updateNodeCapabilities refuses public and another node's subject; the document is unchanged", async () => {
      const id = "urn:node:MNTWO";
      for (const subject of ["public", subjectOf("urn:node:MNONE")]) {
        const error = await checkedError(
          await update(subjectOf(id), id, nodeXml(id, [subjectOf(id), subject])),
        );
        assert.equal(error.name, "InvalidRequest", `${subject}: ${error.body}`);
      }
      assert.deepEqual(await subjectsOf(id), [subjectOf(id)]);
    });

    it("a new subject waits for an administrator's approval; the old one stays in force until then", async () => {
      const id = "urn:node:MNTWO";
      const renewed = "CN=urn:node:MNTWO,O=renewed certificate,DC=org";
      assert.equal((await update(subjectOf(id), id, nodeXml(id, [renewed]))).status, 200);
      assert.deepEqual(await subjectsOf(id), [subjectOf(id)]);
      // Not yet this node's: the new subject cannot act as it.
      const early = await checkedError(await update(renewed, id, nodeXml(id, [renewed])));
      assert.equal(early.name, "NotAuthorized");
      // Nor may another node take the subject that waits.
      const taken = await checkedError(
        await update(subjectOf("urn:node:MNONE"), "urn:node:MNONE", nodeXml("urn:node:MNONE", [renewed])),
      );
      assert.equal(taken.name, "InvalidRequest");
      // The administrators see it waiting, and approve it.
      const listed = JSON.parse(await (await call(admin, "GET", "/../admin/nodes")).text()) as {
        nodeId: string;
        pendingSubjects?: string[];
      }[];
      assert.deepEqual(listed.find((n) => n.nodeId === id)?.pendingSubjects, [renewed]);
      assert.equal(await approveNode(cn.node.ctx.db, id), true);
      assert.deepEqual(await subjectsOf(id), [renewed]);
      assert.equal((await update(renewed, id, nodeXml(id, [renewed]))).status, 200);
    });

    it("an administrator changes a node's subjects at once", async () => {
      const id = "urn:node:MNONE";
      const next = "CN=urn:node:MNONE,O=by the administrator,DC=org";
      assert.equal((await update(ADMIN, id, nodeXml(id, [next]))).status, 200);
      assert.deepEqual(await subjectsOf(id), [next]);
    });

    it("a CN registered before these rules is not listed, and a public subject stored then acts for nobody", async () => {
      const id = "urn:node:OLDCN";
      await cn.node.ctx.db.cn.addNode({
        nodeId: id,
        baseUrl: "https://oldcn.example.org/cn",
        nodeXml: nodeXml(id, [subjectOf(id)], "cn"),
        approved: true,
        registeredBy: subjectOf(id),
      });
      const oldMn = "urn:node:OLDMN";
      await cn.node.ctx.db.cn.addNode({
        nodeId: oldMn,
        baseUrl: "https://oldmn.example.org/mn",
        nodeXml: nodeXml(oldMn, ["public"]),
        approved: true,
        registeredBy: "public",
      });
      const list = await okXml(await call(admin, "GET", "/node"));
      assert.doesNotMatch(list, /urn:node:OLDCN/);
      assert.deepEqual(
        [...list.matchAll(/type="cn"/g)].length,
        1,
        "only this CN is listed as a Coordinating Node",
      );
      // Anyone holds "public": it must not make them urn:node:OLDMN.
      const stranger = await caller("CN=stranger,DC=org");
      const denied = await checkedError(
        await call(stranger, "POST", "/synchronize", { body: form({ pid: "whatever" }) }),
      );
      assert.equal(denied.name, "NotAuthorized");
      const own = await checkedError(
        await call(stranger, "PUT", `/node/${oldMn}`, {
          body: form({ node: { xml: nodeXml(oldMn, ["x"]) } }),
        }),
      );
      assert.equal(own.name, "NotAuthorized");
    });
  });
}
