/**
 * List operations asked with a trailing slash, as MetacatUI asks a CN for its node list (`GET {cn}/v2/node/`):
 * each answers exactly as its slash-less form (DataONE's own nodes do), on a Member Node and a Coordinating Node.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";

const roles = {
  mn: ["/v2/node", "/v1/node", "/v2/object", "/v1/object", "/v2/log", "/v2/query", "/v2/views"],
  cn: [
    "/v2/node",
    "/v1/node",
    "/v2/formats",
    "/v1/formats",
    "/v2/object",
    "/v2/log",
    "/v2/accounts",
    "/v2/checksum",
    "/v2/query",
  ],
};

for (const [role, paths] of Object.entries(roles)) {
  describe(`list operations with a trailing slash (${role})`, () => {
    let node: TestNode;
    let token: string;
    before(async () => {
      node = await startTestNode("sqlite", role === "cn" ? { role: "cn", nodeId: "urn:node:TESTCN" } : {});
      token = await node.token(ADMIN);
    });
    after(() => node.close());

    const get = (path: string) =>
      fetch(`${node.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const root = (xml: string) => /<([\w.:-]+)[\s>]/.exec(xml.replace(/<\?xml[^>]*\?>\s*/, ""))?.[1];

    for (const path of paths) {
      it(`GET ${path}/ answers as GET ${path}`, async () => {
        const plain = await get(path);
        const slashed = await get(`${path}/`);
        const plainBody = await plain.text();
        const slashedBody = await slashed.text();
        assert.equal(plain.status, 200, plainBody);
        assert.equal(slashed.status, 200, slashedBody);
        assert.equal(root(slashedBody), root(plainBody));
        if (slashed.headers.get("content-type")?.includes("xml")) await validateXml(slashedBody);
      });
    }

    it("a query string after the slash is kept", async () => {
      const answer = await get("/v2/object/?count=0");
      const body = await answer.text();
      assert.equal(answer.status, 200, body);
      assert.match(body, /count="0"/);
    });
  });
}
