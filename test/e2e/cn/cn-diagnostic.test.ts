/**
 * CNDiagnostic on a real CN, both dialects: echoCredentials reflects the session (and the account, once there is
 * one), echoSystemMetadata applies the create rules without storing anything, echoIndexedObject answers what the
 * search index would hold.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, describe, it } from "node:test";
import { type Caller, call, checkedError, create, form, okXml } from "../../helpers/clients/client.ts";
import { sysmetaXml, uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, testDialects, withTestNode } from "../../helpers/nodes/node.ts";

const EML_220 = "https://eml.ecoinformatics.org/eml-2.2.0";
const ALICE = "CN=Alice,O=d1node,C=US,DC=cilogon,DC=org";

for (const dialect of testDialects()) {
  describe(`CNDiagnostic (${dialect})`, () => {
    const node = withTestNode(dialect, { role: "cn", nodeId: "urn:node:TESTCN" });
    let admin: Caller;
    let alice: Caller;
    before(async () => {
      admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
      alice = { baseUrl: node.baseUrl, token: await node.token(ALICE) };
    });

    it("echoCredentials: the session's subject, then the registered account", async () => {
      assert.match(await okXml(await call(alice, "GET", "/diag/subject")), /<subject>CN=Alice,/);
      assert.match(
        await okXml(await call({ baseUrl: node.baseUrl }, "GET", "/diag/subject")),
        /<subject>public<\/subject>/,
      );
      const person = `<?xml version="1.0" encoding="UTF-8"?><d1:person xmlns:d1="http://ns.dataone.org/service/types/v1"><subject>${ALICE}</subject><givenName>Alice</givenName><familyName>Liddell</familyName></d1:person>`;
      await okXml(await call(alice, "POST", "/accounts", { body: form({ person: { xml: person } }) }));
      assert.match(
        await okXml(await call(alice, "GET", "/diag/subject")),
        /<familyName>Liddell<\/familyName>/,
      );
    });

    it("echoSystemMetadata: a copy when valid; the create rules otherwise; nothing stored", async () => {
      const echo = (xml: string) =>
        call(alice, "POST", "/diag/sysmeta", { body: form({ sysmeta: { xml } }) });
      const pid = uniquePid("echo");
      const body = await okXml(await echo(sysmetaXml(pid, Buffer.from("e"))));
      assert.match(body, new RegExp(`<identifier>${pid}</identifier>`));
      assert.equal((await call(admin, "GET", `/meta/${pid}`)).status, 404);
      const badFormat = await checkedError(
        await echo(sysmetaXml(pid, Buffer.from("e"), { formatId: "no/such" })),
      );
      assert.deepEqual([badFormat.name, badFormat.detailCode], ["InvalidSystemMetadata", "4976"]);
      const used = uniquePid("used");
      await okXml(await create(admin, used, Buffer.from("u")));
      const taken = await checkedError(await echo(sysmetaXml(used, Buffer.from("u"))));
      assert.deepEqual([taken.name, taken.detailCode], ["IdentifierNotUnique", "4975"]);
      const broken = await checkedError(await echo("<systemMetadata>"));
      assert.equal(broken.name, "InvalidSystemMetadata");
    });

    const echoIndexed = (parts: { queryEngine: string; sysmeta: string; object: Buffer }) =>
      call(alice, "POST", "/diag/object", {
        body: form({ queryEngine: parts.queryEngine, sysmeta: { xml: parts.sysmeta }, object: parts.object }),
      });

    it("echoIndexedObject answers the document the solr index would hold, and stores nothing", async () => {
      const pid = uniquePid("idx");
      const eml = readFileSync(new URL("../../fixtures/search/eml-2.2.0-testdoc.xml", import.meta.url));
      const sysmeta = sysmetaXml(pid, eml, { formatId: EML_220, readers: ["public"] });
      const response = await echoIndexed({ queryEngine: "solr", sysmeta, object: eml });
      const body = await response.text();
      assert.equal(response.status, 200, body);
      assert.match(response.headers.get("content-type") ?? "", /xml/);
      assert.match(body, /<result name="response" numFound="1"/);
      assert.match(body, /<str name="id">[^<]+<\/str>/);
      assert.ok(body.includes("EML Annotation Example"), "the title is extracted");
      assert.ok(body.includes(`<str name="formatId">${EML_220}</str>`));
      assert.equal((await call(alice, "GET", `/meta/${encodeURIComponent(pid)}`)).status, 404);
    });

    it("echoIndexedObject refusals: unknown engine, format the index does not read, invalid sysmeta", async () => {
      const pid = uniquePid("idx-bad");
      const eml = readFileSync(new URL("../../fixtures/search/eml-2.2.0-testdoc.xml", import.meta.url));
      const sysmeta = sysmetaXml(pid, eml, { formatId: EML_220 });
      const engine = await checkedError(await echoIndexed({ queryEngine: "lucene9", sysmeta, object: eml }));
      assert.deepEqual([engine.name, engine.detailCode], ["InvalidRequest", "4984"]);
      const csv = sysmetaXml(pid, Buffer.from("a,b\n"), { formatId: "text/csv" });
      const data = await checkedError(
        await echoIndexed({ queryEngine: "solr", sysmeta: csv, object: Buffer.from("a,b\n") }),
      );
      assert.deepEqual([data.name, data.detailCode], ["UnsupportedMetadataType", "4987"]);
      const broken = await checkedError(
        await echoIndexed({ queryEngine: "solr", sysmeta: "<systemMetadata>", object: eml }),
      );
      assert.equal(broken.name, "InvalidSystemMetadata");
    });
  });
}
