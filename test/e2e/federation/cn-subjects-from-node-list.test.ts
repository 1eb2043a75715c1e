/**
 * A Member Node with a CN (cnBaseUrl) but no cnSubjects trusts the CN subjects its CN's listNodes names: the
 * CN's token for its own subject makes systemMetadataChanged succeed, a CN-like subject the list does not name
 * stays NotAuthorized, and the Node document's restrictions name the subjects taken from the list.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Caller, call, checkedError, create, form } from "../../helpers/clients/client.ts";
import { uniquePid } from "../../helpers/data/sysmeta.ts";
import { startTestNode, type TestNode } from "../../helpers/nodes/node.ts";
import { eventually } from "../../helpers/time/eventually.ts";

const CN_ID = "urn:node:LISTCN";
const LISTED = `CN=${CN_ID},DC=dataone,DC=org`;
const UNLISTED = "CN=urn:node:cnElsewhere,DC=dataone,DC=org";
const OWNER = "CN=Owner,DC=dataone,DC=org";

describe("CN subjects taken from the CN's node list", () => {
  let cn: TestNode;
  let mn: TestNode;
  const pid = uniquePid("cn-subjects");

  before(async () => {
    cn = await startTestNode("sqlite", { role: "cn", nodeId: CN_ID });
    mn = await startTestNode("sqlite", { cnBaseUrl: cn.baseUrl, cnSubjects: [], notifyCn: false });
    const owner: Caller = { baseUrl: mn.baseUrl, token: await mn.token(OWNER) };
    assert.equal((await create(owner, pid, Buffer.from("x\n"), { rightsHolder: OWNER })).status, 200);
  });
  after(async () => {
    await mn.close();
    await cn.close();
  });

  const changed = async (token: string) =>
    call({ baseUrl: mn.baseUrl, token }, "POST", "/dirtySystemMetadata", {
      body: form({ id: pid, serialVersion: "1", dateSysMetaLastModified: new Date().toISOString() }),
    });

  it("names the listed CN subject in the Node document's restrictions", async () => {
    await eventually("the MN read the CN's node list", async () => {
      const node = await (await fetch(`${mn.baseUrl}/v2/node`)).text();
      const restriction = /<restriction methodName="systemMetadataChanged">(.*?)<\/restriction>/.exec(node);
      return restriction?.[1]?.includes(`<subject>${LISTED}</subject>`) ? true : undefined;
    });
  });

  it("accepts systemMetadataChanged from the listed CN, refuses a CN subject the list does not name", async () => {
    const fromCn = await changed(await cn.token(LISTED, 600));
    assert.equal(fromCn.status, 200, await fromCn.text());
    const error = await checkedError(await changed(await mn.token(UNLISTED)));
    assert.equal(error.name, "NotAuthorized");
  });
});
