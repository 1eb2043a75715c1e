/**
 * A node's default name and description say what it is: a Coordinating Node's capabilities do not call it a
 * Member Node. Names given in the settings are kept.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { okXml } from "../../helpers/clients/client.ts";
import { startTestNode } from "../../helpers/nodes/node.ts";

const capabilitiesOf = async (baseUrl: string) => okXml(await fetch(`${baseUrl}/v2/`));
const element = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

describe("node names", () => {
  it("a Coordinating Node is named a Coordinating Node, a Member Node a Member Node", async () => {
    const cn = await startTestNode("sqlite", { role: "cn", nodeId: "urn:node:TESTCN" });
    const mn = await startTestNode("sqlite");
    try {
      const cnDoc = await capabilitiesOf(cn.baseUrl);
      assert.match(cnDoc, /type="cn"/);
      assert.equal(element(cnDoc, "name"), "d1node Coordinating Node");
      assert.doesNotMatch(element(cnDoc, "description") ?? "", /Member Node/);
      const mnDoc = await capabilitiesOf(mn.baseUrl);
      assert.equal(element(mnDoc, "name"), "d1node Member Node");
    } finally {
      await cn.close();
      await mn.close();
    }
  });

  it("a name and description in the settings are kept", async () => {
    const cn = await startTestNode("sqlite", {
      role: "cn",
      nodeId: "urn:node:TESTCN",
      nodeName: "Regional CN",
      nodeDescription: "Our coordinating node",
    });
    try {
      const doc = await capabilitiesOf(cn.baseUrl);
      assert.equal(element(doc, "name"), "Regional CN");
      assert.equal(element(doc, "description"), "Our coordinating node");
    } finally {
      await cn.close();
    }
  });
});
