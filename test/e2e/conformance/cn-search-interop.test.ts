/** CNRead query and search driven by the official DataONE Python client (d1_client CoordinatingNodeClient_2_0). */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { call, create, form } from "../../helpers/clients/client.ts";
import { INTEROP_SKIP, runPythonScript } from "../../helpers/clients/interop.ts";
import { sysmetaXml } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

const SCRIPT = `
import json, sys
import d1_client.cnclient_2_0
client = d1_client.cnclient_2_0.CoordinatingNodeClient_2_0(sys.argv[1])
description = client.getQueryEngineDescription("solr")
answer = client.query("solr", "", query={"q": "id:cn-interop-*", "fl": "id,formatType", "wt": "json", "sort": "id asc"})
in_path = client.query("solr", "?q=formatType:DATA AND id:cn-interop-*&fl=id&wt=json&sort=id desc")
found = client.search("solr", "id:cn-interop-*", start=0, rows=1, sort="id asc")
print(json.dumps({
  "name": description.name,
  "answer": answer,
  "in_path": [d["id"] for d in in_path["response"]["docs"]],
  "search": {"count": found.count, "total": found.total, "ids": [o.identifier.value() for o in found.objectInfo]},
}))
`;

describe("CNRead query and search with the official Python client", { skip: INTEROP_SKIP }, () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode("sqlite", { role: "cn", nodeId: "urn:node:TESTCN" });
    const admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
    assert.equal((await create(admin, "cn-interop-a", Buffer.from("a"))).status, 200);
    // Known to the CN by its system metadata only.
    const xml = sysmetaXml("cn-interop-b", Buffer.from("b"));
    const registered = await call(admin, "POST", "/meta", {
      body: form({ pid: "cn-interop-b", sysmeta: { xml } }),
    });
    assert.equal(registered.status, 200, await registered.text());
  });
  after(() => node.close());

  it("describes, queries and searches the solr engine", async () => {
    const result = JSON.parse(await runPythonScript(SCRIPT, [node.baseUrl]));
    assert.equal(result.name, "solr");
    assert.deepEqual(result.answer.response.docs, [
      { id: "cn-interop-a", formatType: "DATA" },
      { id: "cn-interop-b", formatType: "DATA" },
    ]);
    assert.deepEqual(result.in_path, ["cn-interop-b", "cn-interop-a"]);
    assert.deepEqual(result.search, { count: 1, total: 2, ids: ["cn-interop-a"] });
  });
});
