/** The official DataONE Python client (d1_client MemberNodeClient_2_0) drives listViews, view and getPackage. */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Caller, create } from "../../helpers/clients/client.ts";
import { INTEROP_SKIP, runPythonScript } from "../../helpers/clients/interop.ts";
import { RESOURCE_MAP_FORMAT, resourceMapXml } from "../../helpers/data/resource-map.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { ADMIN, startTestNode, type TestNode } from "../../helpers/nodes/node.ts";
import { unzip, verifyManifests } from "../../helpers/validation/bag.ts";

const SCRIPT = `
import sys, base64, json
import d1_client.mnclient_2_0 as mn
client = mn.MemberNodeClient_2_0(sys.argv[1])
views = client.listViews()
page = client.view("default", sys.argv[2]).text
bag = client.getPackage(sys.argv[3]).content
print(json.dumps({"options": [str(o) for o in views.option], "page": page, "bag": base64.b64encode(bag).decode()}))
`;

describe("MNView and MNPackage with the DataONE Python client", { skip: INTEROP_SKIP }, () => {
  let node: TestNode;
  let admin: Caller;
  const metadata = uniquePid("meta");
  const data = uniquePid("data");
  const map = uniquePid("map");

  before(async () => {
    node = await startTestNode("sqlite");
    admin = { baseUrl: node.baseUrl, token: await node.token(ADMIN) };
    const put = async (pid: string, bytes: Buffer, options: Parameters<typeof create>[3]) =>
      assert.equal((await create(admin, pid, bytes, options)).status, 200);
    await put(
      metadata,
      Buffer.from(
        '<eml:eml xmlns:eml="eml://ecoinformatics.org/eml-2.1.1" packageId="p" system="s"><dataset><title>Snow depth</title></dataset></eml:eml>',
      ),
      { formatId: "eml://ecoinformatics.org/eml-2.1.1" },
    );
    await put(data, Buffer.from("depth\n12\n"), { fileName: "snow.csv" });
    await put(map, Buffer.from(resourceMapXml(map, metadata, [data])), { formatId: RESOURCE_MAP_FORMAT });
  });
  after(() => node.close());

  it("listViews, view and getPackage (application/bagit-097, the client's default)", async () => {
    const result = JSON.parse(await runPythonScript(SCRIPT, [node.baseUrl, metadata, map])) as {
      options: string[];
      page: string;
      bag: string;
    };
    assert.deepEqual(result.options, ["default", "metacatui"]);
    assert.match(result.page, /<h1 id="title">Snow depth<\/h1>/);
    const files = await unzip(Buffer.from(result.bag, "base64"));
    const { payload } = verifyManifests(files);
    assert.equal(payload.length, 2);
    assert.deepEqual(files.get("data/snow.csv"), Buffer.from("depth\n12\n"));
  });
});
