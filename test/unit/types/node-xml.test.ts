import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidRequest } from "../../../src/errors/exceptions.ts";
import { type Node, parseNode, serializeNode, serializeNodeList } from "../../../src/types/index.ts";
import { validateXml } from "../../helpers/validation/xmllint.ts";
import { sample } from "./fixtures.ts";

function fullNode(): Node {
  return {
    identifier: "urn:node:TESTMN",
    name: "Test & <Member> Node",
    description: "A node for tests",
    baseURL: "https://example.org/mn",
    services: [
      { name: "MNCore", version: "v1", available: true, restrictions: [] },
      {
        name: "MNStorage",
        version: "v2",
        available: false,
        restrictions: [
          { methodName: "create", subjects: ["CN=a", "CN=b"] },
          { methodName: "delete", subjects: [] },
        ],
      },
      { name: "MNRead", version: "v2", restrictions: [] },
    ],
    synchronization: {
      schedule: { sec: "0", min: "0/3", hour: "*", mday: "*", mon: "*", wday: "?", year: "*" },
      lastHarvested: new Date("2024-01-02T03:04:05.678Z"),
      lastCompleteHarvest: new Date("2024-01-01T00:00:00.000Z"),
    },
    nodeReplicationPolicy: {
      maxObjectSize: 1073741824,
      spaceAllocated: 10995116277760,
      allowedNodes: ["urn:node:A"],
      allowedObjectFormats: ["text/csv", "eml://ecoinformatics.org/eml-2.1.1"],
    },
    ping: { success: true, lastSuccess: new Date("2024-01-02T03:04:05.000Z") },
    subjects: ["CN=urn:node:TESTMN,DC=dataone,DC=org"],
    contactSubjects: ["CN=Admin", "CN=Other Admin"],
    replicate: true,
    synchronize: false,
    type: "mn",
    state: "up",
    properties: [
      { key: "nodeLogo", value: "https://example.org/logo.png" },
      { key: "CN_date_operational", value: "2024-01-01", type: "date" },
    ],
  };
}

function minimalNode(): Node {
  return {
    identifier: "urn:node:CN",
    name: "CN",
    description: "d",
    baseURL: "https://cn.example.org/cn",
    services: [],
    subjects: [],
    contactSubjects: ["CN=Admin"],
    replicate: false,
    synchronize: false,
    type: "cn",
    state: "unknown",
    properties: [],
  };
}

describe("Node documents", () => {
  for (const version of ["v1", "v2"] as const) {
    it(`node and nodeList (${version}) are schema-valid`, async () => {
      await validateXml(serializeNode(fullNode(), version));
      await validateXml(serializeNode(minimalNode(), version));
      await validateXml(serializeNodeList([fullNode(), minimalNode()], version));
    });
  }

  it("round-trips; v1 leaves out properties", () => {
    assert.deepEqual(parseNode(serializeNode(fullNode(), "v2")), fullNode());
    assert.deepEqual(parseNode(serializeNode(fullNode(), "v1")), { ...fullNode(), properties: [] });
    assert.deepEqual(parseNode(serializeNode(minimalNode(), "v2")), minimalNode());
    const v1 = serializeNode(fullNode(), "v1");
    assert.match(
      v1,
      /^<\?xml version="1.0" encoding="UTF-8"\?><d1:node xmlns:d1="http:\/\/ns.dataone.org\/service\/types\/v1" replicate="true" synchronize="false" type="mn" state="up">/,
    );
    assert.doesNotMatch(v1, /<property/);
  });

  it("reads the v2 sample", () => {
    const node = parseNode(sample("node_v2.xml"));
    assert.equal(node.identifier, "urn:node:TESTMN");
    assert.equal(node.services.length, 8);
    assert.equal(node.services.find((s) => s.name === "MNReplication")?.available, false);
    assert.equal(node.synchronization?.schedule.sec, "00");
    assert.deepEqual(node.ping, { success: true });
    assert.deepEqual(node.properties, [{ key: "nodeLogo", value: "https://example.org/logo.png" }]);
  });

  it("rejects invalid nodes with InvalidRequest naming the field", () => {
    const good = serializeNode(fullNode(), "v2");
    const cases: [string, RegExp][] = [
      [good.replace(/<identifier>[^<]*<\/identifier>/, ""), /<identifier>/],
      [good.replace(/<contactSubject>[^<]*<\/contactSubject>/g, ""), /contactSubject/],
      [good.replace(' type="mn"', ' type="Monitor"'), /@type/],
      [good.replace(' state="up"', ' state="sideways"'), /@state/],
      [good.replace(' replicate="true"', ""), /replicate/],
      [good.replace(' synchronize="false"', ' synchronize="no"'), /synchronize/],
      [good.replace('sec="0"', 'sec="61"'), /sec/],
      [good.replace('min="0/3"', 'min="0 3"'), /min/],
      [good.replace("<baseURL>https://example.org/mn</baseURL>", "<baseURL>not a url</baseURL>"), /baseURL/],
      [good.replace("<name>", "<name/><name>"), /name/],
      [good.replace("<services>", "<services><color/>"), /unknown element <color>/],
      [good.replace(' available="true"', ' available="sure"'), /available/],
      [good.replace("<maxObjectSize>1073741824", "<maxObjectSize>-5"), /maxObjectSize/],
      [good.replace('<ping success="true"', '<ping success="yes"'), /ping/],
      [good.replace("<lastHarvested>2024-01-02T03:04:05.678Z", "<lastHarvested>soon"), /lastHarvested/],
      [good.replace(/<property key="nodeLogo"/, "<property"), /key/],
      [
        serializeNode(fullNode(), "v1").replace("</d1:node>", '<property key="k">v</property></d1:node>'),
        /unknown element <property>/,
      ],
      [good.replace("<services>", '<!DOCTYPE x [<!ENTITY e "e">]><services>'), /DOCTYPE/],
    ];
    for (const [xml, pattern] of cases) {
      assert.throws(
        () => parseNode(xml),
        (e: unknown) => e instanceof InvalidRequest && pattern.test(e.description),
        String(pattern),
      );
    }
  });
});
