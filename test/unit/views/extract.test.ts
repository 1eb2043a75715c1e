/** Metadata documents of each standard become the same view model. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { extractMetadata } from "../../../src/views/extract/index.ts";

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/views/${name}`, import.meta.url));

describe("extractMetadata", () => {
  it("EML 2.x: title, creators, abstract, keywords, coverage, methods, entities", () => {
    const m = extractMetadata(fixture("eml-lake.xml"), "eml://ecoinformatics.org/eml-2.1.1", "EML 2.1.1");
    assert.equal(m.kind, "eml");
    assert.equal(m.title, "Water temperature of Lake Ontiki, 2019-2021");
    assert.deepEqual(m.creators, ["Ada Limnos", "Lake Ontiki Field Station"]);
    assert.deepEqual(m.abstract, [
      "Hourly water temperature at three depths from a moored buoy.",
      "Values are in degrees Celsius.",
    ]);
    assert.deepEqual(m.keywords, ["limnology", "water temperature"]);
    assert.deepEqual(m.coverage.temporal, ["2019-05-01 to 2021-10-31"]);
    assert.deepEqual(m.coverage.boxes, [
      {
        west: "-89.41",
        east: "-89.38",
        north: "43.10",
        south: "43.08",
        description: "Lake Ontiki, central basin",
      },
    ]);
    assert.deepEqual(m.methods, ["Thermistor chain read every hour by a data logger."]);
    assert.deepEqual(m.entities, [
      { name: "temperatures.csv", kind: "dataTable", description: "Hourly temperatures", id: "DATA_PID" },
    ]);
  });

  it("ISO 19139", () => {
    const m = extractMetadata(fixture("iso19139.xml"), "http://www.isotc211.org/2005/gmd", "ISO");
    assert.equal(m.kind, "iso19139");
    assert.equal(m.title, "Sea ice extent, Beaufort Sea");
    assert.deepEqual(m.creators, ["Nils Glacie"]);
    assert.deepEqual(m.abstract, ["Daily sea ice extent from passive microwave."]);
    assert.deepEqual(m.keywords, ["sea ice"]);
    assert.deepEqual(m.coverage.temporal, ["2001-01-01 to 2020-12-31"]);
    assert.deepEqual(m.coverage.boxes, [{ west: "-156", east: "-120", north: "77", south: "69" }]);
    assert.deepEqual(m.methods, ["Derived from SSM/I brightness temperatures."]);
    assert.deepEqual(m.entities, [{ name: "ice.nc", url: "https://example.org/ice.nc" }]);
  });

  it("FGDC", () => {
    const m = extractMetadata(fixture("fgdc.xml"), "FGDC-STD-001-1998", "FGDC");
    assert.equal(m.kind, "fgdc");
    assert.equal(m.title, "Stream gauge heights, Oak Creek");
    assert.deepEqual(m.creators, ["River Survey Office"]);
    assert.deepEqual(m.keywords, ["hydrology"]);
    assert.deepEqual(m.coverage.places, ["Oak Creek"]);
    assert.deepEqual(m.coverage.temporal, ["20150101 to 20151231"]);
    assert.deepEqual(m.coverage.boxes, [{ west: "-123.5", east: "-123.1", north: "44.7", south: "44.5" }]);
    assert.deepEqual(m.methods, ["Pressure transducer readings converted to stage."]);
    assert.deepEqual(m.entities, [{ name: "gauge.csv", description: "Stage table" }]);
  });

  it("Dublin Core", () => {
    const m = extractMetadata(
      fixture("dublin-core.xml"),
      "http://ns.dataone.org/metadata/schema/onedcx/v1.0",
      "DC",
    );
    assert.equal(m.kind, "dublin-core");
    assert.equal(m.title, "Pollinator visits to meadow flowers");
    assert.deepEqual(m.creators, ["Bea Apis"]);
    assert.deepEqual(m.keywords, ["pollination"]);
    assert.deepEqual(m.abstract, ["Counts of visits per flower per hour."]);
    assert.deepEqual(m.coverage.places, ["Alpine meadow, Sierra Nevada"]);
    assert.deepEqual(m.entities, [
      { name: "https://example.org/visits.csv", url: "https://example.org/visits.csv" },
    ]);
  });

  it("other XML: its leaf elements as fields", () => {
    const m = extractMetadata(fixture("generic.xml"), "text/xml", "XML");
    assert.equal(m.kind, "xml");
    assert.deepEqual(m.fields, [
      { path: "record/name", value: "Station 7" },
      { path: "record/location/lat", value: "12.5" },
      { path: "record/location/lon", value: "-45.25" },
    ]);
  });

  it("a document that is not XML, or has a DOCTYPE, gets a page saying so", () => {
    const m = extractMetadata(Buffer.from('<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>'), "text/xml", "XML");
    assert.equal(m.fields.length, 1);
    assert.match(m.fields[0]?.value ?? "", /could not be read as XML/);
  });

  it("schema.org JSON-LD (SOSO): title, creators with ORCIDs, keywords, coverage, licence; or a page saying so", () => {
    const soso = "science-on-schema.org/Dataset;ld+json";
    const doc = {
      "@context": { "@vocab": "https://schema.org/" },
      "@type": "Dataset",
      name: "Lake temperatures",
      description: "Hourly water temperature.",
      creator: {
        "@list": [
          { "@type": "Person", "@id": "https://orcid.org/0000-0002-1825-0097", name: "Ann Lee" },
          { "@type": "Organization", name: "Field Station" },
        ],
      },
      keywords: ["limnology, temperature"],
      temporalCoverage: "2019-05-01/..",
      spatialCoverage: {
        "@type": "Place",
        name: "Lake",
        geo: { "@type": "GeoShape", box: "43.08 -89.41 43.10 -89.38" },
      },
      datePublished: "2022",
      license: "https://spdx.org/licenses/CC0-1.0",
    };
    const m = extractMetadata(Buffer.from(JSON.stringify(doc)), soso, "JSON-LD metadata");
    assert.equal(m.kind, "schema-org");
    assert.equal(m.title, "Lake temperatures");
    assert.deepEqual(m.creators, ["Ann Lee", "Field Station"]);
    assert.deepEqual(m.details?.creators[0], {
      name: "Ann Lee",
      kind: "person",
      orcid: "0000-0002-1825-0097",
    });
    assert.deepEqual(m.keywords, ["limnology", "temperature"]);
    assert.deepEqual(m.coverage.temporal, ["2019-05-01 to ?"]);
    assert.deepEqual(m.coverage.boxes, [
      { south: "43.08", west: "-89.41", north: "43.10", east: "-89.38", description: "Lake" },
    ]);
    assert.equal(m.published, "2022");
    assert.equal(m.details?.license?.url, "https://spdx.org/licenses/CC0-1.0");
    const bad = extractMetadata(Buffer.from("{not json"), soso, "JSON-LD metadata");
    assert.equal(bad.kind, "schema-org");
    assert.match(bad.fields[0]?.value ?? "", /no schema\.org Dataset/);
  });
});
