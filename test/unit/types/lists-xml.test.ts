import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidRequest } from "../../../src/errors/exceptions.ts";
import {
  type LogEntry,
  type ObjectInfo,
  parseChecksum,
  parseIdentifier,
  parseLog,
  parseObjectList,
  parseQueryEngineList,
  serializeChecksum,
  serializeChecksumAlgorithmList,
  serializeIdentifier,
  serializeLog,
  serializeObjectList,
  serializeObjectLocationList,
  serializeOptionList,
  serializeQueryEngineList,
} from "../../../src/types/index.ts";
import { validateAll, validateXml } from "../../helpers/validation/xmllint.ts";
import { sample, trickyIdentifiers } from "./fixtures.ts";

const info = (i: number): ObjectInfo => ({
  identifier: `pid-${i}&<>"`,
  formatId: "text/csv",
  checksum: { algorithm: "SHA-1", value: "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12" },
  dateSysMetadataModified: new Date(Date.UTC(2024, 0, 1, 0, 0, 0, i)),
  size: i,
});

const entry = (event: string, i = 1): LogEntry => ({
  entryId: String(i),
  identifier: `pid-${i}`,
  ipAddress: "192.0.2.1",
  userAgent: "curl/8 \u0007bell",
  subject: "CN=someone",
  event,
  dateLogged: new Date("2024-01-02T03:04:05.678Z"),
  nodeIdentifier: "urn:node:TESTMN",
});

const assertInvalid = (fn: () => unknown, pattern: RegExp) =>
  assert.throws(
    fn,
    (e: unknown) => e instanceof InvalidRequest && pattern.test(e.description),
    String(pattern),
  );

describe("ObjectList", () => {
  it("is valid when empty and full; count is the number of items", async () => {
    const empty = serializeObjectList({ start: 0, total: 0, items: [] });
    assert.match(
      empty,
      /<d1:objectList xmlns:d1="http:\/\/ns.dataone.org\/service\/types\/v1" count="0" start="0" total="0">/,
    );
    const page = { start: 5, total: 57, items: [info(1), info(2), info(3)] };
    const xml = serializeObjectList(page);
    assert.match(xml, / count="3" start="5" total="57"/);
    await validateAll([empty, xml]);
    assert.deepEqual(parseObjectList(xml), page);
  });

  it("reads the sample and refuses a wrong count", () => {
    const list = parseObjectList(sample("objectList_v1.xml"));
    assert.equal(list.total, 57);
    assert.equal(list.items[1]?.identifier, "pid-v1-example");
    assertInvalid(
      () => parseObjectList(sample("objectList_v1.xml").replace('count="2"', 'count="3"')),
      /count/,
    );
  });

  it("serializes a page of 1000 entries", () => {
    const items = Array.from({ length: 1000 }, (_, i) => info(i));
    const xml = serializeObjectList({ start: 0, total: 1000, items });
    assert.match(xml, / count="1000" start="0" total="1000">/);
    assert.equal(xml.match(/<objectInfo>/g)?.length, 1000);
  });
});

describe("Log", () => {
  it("v2 carries any event; v1 leaves out events outside the v1 enumeration", async () => {
    const page = { start: 0, total: 3, items: [entry("read", 1), entry("archive", 2), entry("create", 3)] };
    const v2 = serializeLog(page, "v2");
    const v1 = serializeLog(page, "v1");
    assert.match(
      v2,
      /<d1_v2.0:log xmlns:d1_v2.0="http:\/\/ns.dataone.org\/service\/types\/v2.0" count="3" start="0" total="3">/,
    );
    assert.match(
      v1,
      /<d1:log xmlns:d1="http:\/\/ns.dataone.org\/service\/types\/v1" count="2" start="0" total="3">/,
    );
    assert.doesNotMatch(v1, /archive/);
    await validateAll([v1, v2, serializeLog({ start: 0, total: 0, items: [] }, "v1")]);
    const clean = (e: LogEntry) => ({ ...e, userAgent: "curl/8 bell" });
    assert.deepEqual(parseLog(v2), { ...page, items: page.items.map(clean) });
    assert.deepEqual(
      parseLog(v1).items.map((e) => e.event),
      ["read", "create"],
    );
  });

  it("reads the sample; a v1 log with a v2-only event is refused", () => {
    assert.equal(parseLog(sample("log_v2.xml")).items[0]?.userAgent, "curl/7.88.1");
    const v1 = serializeLog({ start: 0, total: 1, items: [entry("read")] }, "v1").replace(
      "<event>read",
      "<event>archive",
    );
    assertInvalid(() => parseLog(v1), /event/);
  });
});

describe("small documents", () => {
  it("checksum and identifier are valid and round-trip, tricky identifiers included", async () => {
    const checksum = { algorithm: "MD5", value: "6f5902ac237024bdd0c176cb93063dc4" };
    await validateXml(serializeChecksum(checksum));
    assert.deepEqual(parseChecksum(serializeChecksum(checksum)), checksum);
    assert.deepEqual(parseChecksum(sample("checksum_v1.xml")), checksum);
    assert.equal(
      parseIdentifier(sample("identifier_v1.xml")),
      "urn:uuid:3f0b6a2e-0000-4000-8000-000000000001",
    );
    const docs = trickyIdentifiers().map(({ identifier }) => {
      const xml = serializeIdentifier(identifier);
      assert.equal(parseIdentifier(xml), identifier);
      return xml;
    });
    await validateAll(docs);
    assertInvalid(() => parseIdentifier(serializeIdentifier("a b")), /whitespace/);
    assertInvalid(() => parseIdentifier(serializeIdentifier("x".repeat(801))), /801/);
  });

  it("checksumAlgorithmList, objectLocationList, queryEngineList and optionList are valid", async () => {
    const engines = serializeQueryEngineList(["solr", "pathquery"]);
    assert.deepEqual(parseQueryEngineList(engines), ["solr", "pathquery"]);
    assert.deepEqual(parseQueryEngineList(sample("queryEngineList_v1.1.xml")), ["solr"]);
    await validateAll([
      serializeChecksumAlgorithmList(["MD5", "SHA-1", "SHA-256"]),
      serializeObjectLocationList({ identifier: "pid", locations: [] }),
      serializeObjectLocationList({
        identifier: "pid/1",
        locations: [
          {
            nodeIdentifier: "urn:node:A",
            baseURL: "https://a.example/mn",
            versions: ["v1", "v2"],
            url: "https://a.example/mn/v2/object/pid%2F1",
            preference: 1,
          },
          {
            nodeIdentifier: "urn:node:B",
            baseURL: "https://b.example/mn",
            versions: ["v1"],
            url: "https://b.example/mn/v1/object/pid%2F1",
          },
        ],
      }),
      engines,
      serializeQueryEngineList([]),
      serializeOptionList({ key: "k", description: 'Options "for" x', options: ["a", "b"] }),
      serializeOptionList({ key: "k", description: "", options: [] }),
    ]);
  });
});
