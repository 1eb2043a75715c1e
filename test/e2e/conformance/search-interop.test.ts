/** MNQuery driven by the official DataONE Python client (d1_client MemberNodeClient_2_0). */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { create } from "../../helpers/clients/client.ts";
import { INTEROP_SKIP, runPythonScript } from "../../helpers/clients/interop.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";

const SCRIPT = `
import json, sys
import d1_client.mnclient_2_0
import d1_common.types.dataoneTypes_v1_1 as v1_1
client = d1_client.mnclient_2_0.MemberNodeClient_2_0(sys.argv[1])
# The client has no listQueryEngines method: its own GET, parsed with the library's v1.1 types.
engines = v1_1.CreateFromDocument(client.GET(["query"]).content)
description = client.getQueryEngineDescription("solr")
answer = client.query("solr", "", query={"q": "id:interop-*", "fl": "id,formatType", "wt": "json", "sort": "id asc"})
in_path = client.query("solr", "?q=formatType:DATA&fl=id&wt=json")
print(json.dumps({
  "engines": list(engines.queryEngine),
  "name": description.name,
  "fields": len(description.queryField),
  "answer": answer,
  "in_path": in_path,
}))
`;

describe("MNQuery with the official Python client", { skip: INTEROP_SKIP }, () => {
  let node: TestNode;
  before(async () => {
    node = await startTestNode("sqlite");
    const admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
    for (const pid of ["interop-a", "interop-b"]) {
      assert.equal((await create(admin, pid, Buffer.from(pid))).status, 200);
    }
  });
  after(() => node.close());

  it("lists, describes and queries the solr engine", async () => {
    const result = JSON.parse(await runPythonScript(SCRIPT, [node.baseUrl]));
    assert.deepEqual(result.engines, ["solr"]);
    assert.equal(result.name, "solr");
    assert.ok(result.fields > 100);
    assert.equal(result.answer.response.numFound, 2);
    assert.deepEqual(result.answer.response.docs, [
      { id: "interop-a", formatType: "DATA" },
      { id: "interop-b", formatType: "DATA" },
    ]);
    assert.deepEqual(
      result.in_path.response.docs.map((d: { id: string }) => d.id),
      ["interop-a", "interop-b"],
    );
  });
});
