/**
 * CNView over a real listening CN, both dialects: listViews; a document the CN holds renders (inert when
 * hostile); a SID names its head; access and unknown identifiers; a document known by its system metadata alone
 * redirects to its authoritative MN's view when that MN is approved and serves MNView, and renders the system
 * metadata otherwise (a DOI's citation naming that MN).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, describe, it } from "node:test";
import { approveNode } from "../../../src/services/cn/register.ts";
import { type Caller, call, checkedError, create, enc, form, okXml } from "../../helpers/clients/client.ts";
import { editSysmeta, sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, CN_SUBJECT, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/views/${name}`, import.meta.url));
const EML = "eml://ecoinformatics.org/eml-2.1.1";
const MN_SUBJECT = "CN=urn:node:VIEWMN,DC=dataone,DC=org";
const PLAIN_SUBJECT = "CN=urn:node:PLAINMN,DC=dataone,DC=org";

const nodeXml = (id: string, subject: string, baseUrl: string, services: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><d1:node xmlns:d1="http://ns.dataone.org/service/types/v2.0" replicate="false" synchronize="false" type="mn" state="up"><identifier>${id}</identifier><name>${id}</name><description>test node</description><baseURL>${baseUrl}</baseURL><services>${services.map((s) => `<service name="${s}" version="v2" available="true"/>`).join("")}</services><subject>${subject}</subject><contactSubject>${subject}</contactSubject></d1:node>`;

for (const dialect of testDialects()) {
  describe(`CNView (${dialect})`, () => {
    const node = withTestNode(dialect, { role: "cn", nodeId: "urn:node:TESTCN" });
    let admin: Caller;
    let cn: Caller;
    let anon: Caller;

    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      cn = { baseUrl: node.baseUrl, token: await node.token(CN_SUBJECT) };
      anon = { baseUrl: node.baseUrl };
      const views = { baseUrl: node.baseUrl, token: await node.token(MN_SUBJECT) };
      const plain = { baseUrl: node.baseUrl, token: await node.token(PLAIN_SUBJECT) };
      const withViews = nodeXml("urn:node:VIEWMN", MN_SUBJECT, "https://views.example.org/mn", [
        "MNCore",
        "MNView",
      ]);
      const without = nodeXml("urn:node:PLAINMN", PLAIN_SUBJECT, "https://plain.example.org/mn", ["MNCore"]);
      await okXml(await call(views, "POST", "/node", { body: form({ node: { xml: withViews } }) }));
      await okXml(await call(plain, "POST", "/node", { body: form({ node: { xml: without } }) }));
      assert.equal(await approveNode(node.node.ctx.db, "urn:node:VIEWMN"), true);
      assert.equal(await approveNode(node.node.ctx.db, "urn:node:PLAINMN"), true);
    });

    const put = async (pid: string, bytes: Buffer, options: Parameters<typeof create>[3]) => {
      const response = await create(admin, pid, bytes, options);
      assert.equal(response.status, 200, await response.text());
    };
    /** A document the CN knows by its system metadata only, held by `mn`. */
    const registerElsewhere = async (pid: string, mn: string) => {
      const xml = editSysmeta(
        sysmetaXml(pid, fixture("eml-lake.xml"), { formatId: EML, readers: ["public"] }),
        { authoritativeMemberNode: mn, originMemberNode: mn },
      );
      await okXml(await call(cn, "POST", "/meta", { body: form({ pid, sysmeta: { xml } }) }));
    };

    it("listViews answers an optionList with default and metacatui", async () => {
      const xml = await okXml(await call(anon, "GET", "/views"));
      assert.match(xml, /<option>default<\/option>/);
      assert.match(xml, /<option>metacatui<\/option>/);
      assert.match(xml, /CNView\.view/);
    });

    it("renders a document the CN holds; hostile content stays inert; a SID names its head", async () => {
      const pid = uniquePid("cn-eml");
      await put(pid, fixture("eml-lake.xml"), { formatId: EML, readers: ["public"], seriesId: `${pid}-sid` });
      for (const id of [pid, `${pid}-sid`]) {
        const page = await call(anon, "GET", `/views/default/${enc(id)}`);
        assert.equal(page.status, 200);
        assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
        assert.match(page.headers.get("content-security-policy") ?? "", /default-src 'none'/);
        const html = await page.text();
        assert.match(html, /Water temperature of Lake Ontiki/);
        assert.ok(html.includes(pid));
      }
      const hostile = uniquePid("cn-hostile");
      await put(hostile, fixture("eml-hostile.xml"), { formatId: EML, readers: ["public"] });
      const html = await (await call(anon, "GET", `/views/default/${enc(hostile)}`)).text();
      assert.doesNotMatch(html, /<script/i);
      // Event-handler attributes only inside real tags (escaped text may spell them out harmlessly).
      assert.doesNotMatch(html, /<[a-z][^>]*\son[a-z]+\s*=/i);
      assert.doesNotMatch(html, /href="javascript:/i);
    });

    it("NotAuthorized for a private document, NotFound for an unknown identifier", async () => {
      const secret = uniquePid("cn-secret");
      await put(secret, fixture("eml-lake.xml"), { formatId: EML, readers: ["CN=alice"] });
      const denied = await checkedError(await call(anon, "GET", `/views/default/${enc(secret)}`));
      assert.deepEqual([denied.name, denied.detailCode], ["NotAuthorized", "2852"]);
      const missing = await checkedError(await call(anon, "GET", `/views/default/${enc(uniquePid("none"))}`));
      assert.equal(missing.name, "NotFound");
    });

    it("a document held by an MN that serves MNView: 303 to that MN's view", async () => {
      const pid = uniquePid("elsewhere");
      await registerElsewhere(pid, "urn:node:VIEWMN");
      const response = await call(anon, "GET", `/views/metacatui/${enc(pid)}`, { redirect: "manual" });
      assert.equal(response.status, 303);
      assert.equal(
        response.headers.get("location"),
        `https://views.example.org/mn/v2/views/metacatui/${encodeURIComponent(pid)}`,
      );
    });

    it("a document held by an MN without MNView: the CN renders its system metadata", async () => {
      const pid = uniquePid("plain");
      await registerElsewhere(pid, "urn:node:PLAINMN");
      const response = await call(anon, "GET", `/views/default/${enc(pid)}`, { redirect: "manual" });
      assert.equal(response.status, 200);
      const html = await response.text();
      assert.ok(html.includes(pid));
      assert.ok(html.includes("urn:node:PLAINMN"));
    });

    it("a DOI held by such an MN: its citation names that MN (the publisher), not this CN", async () => {
      const doi = `doi:10.5072/FK2${uniquePid("cite").replace(/[^A-Za-z0-9]/g, "")}`;
      await registerElsewhere(doi, "urn:node:PLAINMN");
      const html = await (await call(anon, "GET", `/views/default/${enc(doi)}`)).text();
      const citation = /<p class="citation">(.*?)<a href/s.exec(html)?.[1] ?? "";
      assert.ok(citation.endsWith(". urn:node:PLAINMN. "), citation);
    });
  });
}
