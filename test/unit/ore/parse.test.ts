import assert from "node:assert/strict";
import { createReadStream, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { parseResourceMap, ResourceMapError } from "../../../src/ore/index.ts";

const fixture = (name: string) => new URL(`../../fixtures/ore/${name}`, import.meta.url);

describe("parseResourceMap on real DataONE resource maps", () => {
  it("reads a map written by the Java libclient (literal isAggregatedBy, encoded '%' in the map pid)", async () => {
    const map = await parseResourceMap(readFileSync(fixture("d1-python-java-libclient.xml")));
    assert.equal(map.id, "doi:10.6067:XCV8623_format=d1rem2016-02-29%2013:14:54.163036");
    assert.equal(
      map.aggregation,
      "https://cn-sandbox.test.dataone.org/cn/v1/resolve/doi:10.6067:XCV8623_format=d1rem2016-02-29%252013:14:54.163036#aggregation",
    );
    assert.deepEqual(map.members, ["doi:10.6067:XCV8623_2016-02-29 13:14:54.163036"]);
    assert.deepEqual(map.documents, []);
  });

  it("reads the d1_pyore example: four members, documents and isDocumentedBy merged", async () => {
    const map = await parseResourceMap(createReadStream(fixture("d1-pyore-readme.xml")));
    assert.equal(map.id, "ore_pid_value");
    assert.equal(map.aggregation, "https://cn.dataone.org/cn/v2/resolve/ore_pid_value#aggregation");
    assert.deepEqual([...map.members].sort(), [
      "data_pid_1",
      "data_pid_2",
      "data_pid_3",
      "sci_meta_pid_value",
    ]);
    const pairs = map.documents.map((d) => `${d.metadata} -> ${d.data}`).sort();
    assert.deepEqual(pairs, [
      "data_pid_1 -> data_pid_1",
      "data_pid_2 -> data_pid_2",
      "data_pid_3 -> data_pid_3",
      "sci_meta_pid_value -> data_pid_1",
      "sci_meta_pid_value -> data_pid_2",
      "sci_meta_pid_value -> data_pid_3",
    ]);
  });

  it("decodes tricky identifiers written by d1_common", async () => {
    const map = await parseResourceMap(readFileSync(fixture("d1-common-tricky.xml"), "utf8"));
    assert.equal(map.id, "ore pid/ä#1");
    assert.deepEqual([...map.members].sort(), ["data 1.csv", "data%2.csv", "meta:pid?x=1&y", "ü/data3"]);
    assert.equal(map.documents.length, 3);
    assert.ok(map.documents.every((d) => d.metadata === "meta:pid?x=1&y"));
  });
});

describe("parseResourceMap identifiers without dcterms:identifier", () => {
  it("decodes the pid from the resolve URI", async () => {
    const map = await parseResourceMap(`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
      xmlns:ore="http://www.openarchives.org/ore/terms/">
      <ore:ResourceMap rdf:about="https://cn.dataone.org/cn/v2/resolve/map%2F1">
        <ore:describes><ore:Aggregation rdf:about="https://cn.dataone.org/cn/v2/resolve/map%2F1#aggregation">
          <ore:aggregates rdf:resource="https://cn.dataone.org/cn/v2/resolve/a%20b"/>
          <ore:aggregates rdf:resource="urn:uuid:not-a-resolve-uri"/>
        </ore:Aggregation></ore:describes>
      </ore:ResourceMap></rdf:RDF>`);
    assert.equal(map.id, "map/1");
    assert.deepEqual(map.members, ["a b", "urn:uuid:not-a-resolve-uri"]);
  });
});

describe("parseResourceMap refuses what is not a resource map", () => {
  const refuses = async (text: string, pattern: RegExp, maxBytes?: number) => {
    await assert.rejects(parseResourceMap(text, maxBytes ? { maxBytes } : {}), (error: unknown) => {
      assert.ok(error instanceof ResourceMapError);
      assert.match(error.message, pattern);
      return true;
    });
  };
  it("not XML", () => refuses("this is not xml <", /Not a valid RDF\/XML/));
  it("a DOCTYPE", () =>
    refuses(
      '<!DOCTYPE r [<!ENTITY x "y">]><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>',
      /DOCTYPE/,
    ));
  it("no ore:ResourceMap", () =>
    refuses('<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"></rdf:RDF>', /exactly one/));
  it("too large", () =>
    refuses(readFileSync(fixture("d1-pyore-readme.xml"), "utf8"), /larger than 100 bytes/, 100));
});
