/** Science-metadata extraction from real EML, ISO, FGDC, Dublin Core and schema.org documents. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { extractorFor } from "../../../src/search/extract/index.ts";
import type { SearchDocument } from "../../../src/search/schema/document.ts";

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/search/${name}`, import.meta.url));
const extract = (formatId: string, file: string): SearchDocument => {
  const extractor = extractorFor(formatId);
  assert.ok(extractor, formatId);
  return extractor(fixture(file));
};
const date = (iso: string) => Date.parse(iso);

describe("search extraction", () => {
  it("EML 2.1.0: title, creators, keywords, coverage, taxonomy, attributes", () => {
    const doc = extract("eml://ecoinformatics.org/eml-2.1.0", "eml-2.1.0-peggym.130.4.xml");
    assert.deepEqual(doc.get("title"), ["Augrabies falls National Park census data."]);
    assert.deepEqual(doc.get("origin"), ["SANParks", "Gordon Freeman", "The Awesome Store"]);
    assert.deepEqual(doc.get("author"), ["SANParks"]);
    assert.deepEqual(doc.get("authorLastName"), ["SANParks", "Garcia", "Freeman"]);
    assert.deepEqual(doc.get("keywords")?.slice(0, 3), [
      "SANParks, South Africa",
      "Augrabies Falls National Park,South Africa",
      "Census data",
    ]);
    assert.deepEqual(doc.get("site"), ["Agulhas falls national Park"]);
    assert.deepEqual(doc.get("beginDate"), [date("1998-01-01T00:00:00Z")]);
    assert.deepEqual(doc.get("endDate"), [date("2004-02-13T00:00:00Z")]);
    assert.deepEqual(doc.get("northBoundCoord"), [26]);
    assert.deepEqual(doc.get("westBoundCoord"), [-120.31121]);
    assert.deepEqual(doc.get("geohash_1"), ["9"]);
    assert.equal(doc.get("geohash_9")?.[0]?.toString().length, 9);
    assert.ok(doc.get("genus")?.includes("Diceros"));
    assert.ok(doc.get("scientificName")?.includes("Diceros bicornis"));
    assert.ok(doc.get("attributeName")?.includes("SumOfJuvenile"));
    assert.match(String(doc.get("text")?.[0]), /Augrabies falls National Park census data/);
  });

  it("EML 2.2.0: project, funding and awards", () => {
    const doc = extract("https://eml.ecoinformatics.org/eml-2.2.0", "eml-2.2.0-testdoc.xml");
    assert.deepEqual(doc.get("project"), ["MY PROJECT"]);
    assert.deepEqual(doc.get("funderName"), ["My Funder"]);
    assert.deepEqual(doc.get("awardNumber"), ["AWARD1"]);
    assert.deepEqual(doc.get("awardTitle"), ["An example award title"]);
    assert.deepEqual(doc.get("author"), ["EML Annotator"]);
    assert.deepEqual(doc.get("licenseName"), ["Creative Commons Attribution 4.0 International"]);
  });

  it("ISO 19139: title, keywords, parties, box, period, publication date", () => {
    const doc = extract("http://www.isotc211.org/2005/gmd", "iso19139-noaa.xml");
    assert.match(String(doc.get("title")?.[0]), /\(NODC Accession 9900233\)$/);
    assert.ok(doc.get("keywords")?.includes("WATER TEMPERATURE"));
    assert.deepEqual(doc.get("author"), ["Alexander Sy"]);
    assert.deepEqual(doc.get("contactOrganization"), ["US National Oceanographic Data Center"]);
    assert.deepEqual(
      ["northBoundCoord", "southBoundCoord", "eastBoundCoord", "westBoundCoord"].map((f) => doc.get(f)?.[0]),
      [65.7, -9, -5.7, -50],
    );
    assert.deepEqual(doc.get("beginDate"), [date("1998-01-01T00:00:00Z")]);
    assert.deepEqual(doc.get("endDate"), [date("1998-12-12T00:00:00Z")]);
  });

  it("FGDC: citation, dates as YYYYMMDD, keywords, bounding box, attributes", () => {
    const doc = extract("FGDC-STD-001-1998", "fgdc-nasa-FEDGPS1293.xml");
    assert.match(
      String(doc.get("title")?.[0]),
      /^Global Positioning System Ground Control Points Acquired 1993/,
    );
    assert.deepEqual(doc.get("pubDate"), [date("1994-01-01T00:00:00Z")]);
    assert.deepEqual(doc.get("northBoundCoord"), [45]);
    assert.ok(doc.get("placeKey")?.includes("CONTINENT > NORTH AMERICA"));
    assert.ok(doc.get("attributeName")?.includes("NUM_MEAS"));
  });

  it("Dublin Core and schema.org JSON-LD", () => {
    const dc = extract("http://www.openarchives.org/OAI/2.0/oai_dc/", "oai-dc.xml");
    assert.deepEqual(dc.get("keywords"), ["Ecology", "White tailed deer", "chestnut oak"]);
    assert.deepEqual(dc.get("origin"), ["figshare admin Cary Institute (1246804)", "Jen Nieves (1725067)"]);
    const ld = extract("science-on-schema.org/Dataset;ld+json", "schema-org-bco-dmo.jsonld");
    assert.deepEqual(ld.get("author"), ["Nicola Kirby"]);
    assert.deepEqual(ld.get("authorSurName"), ["Kirby"]);
    assert.ok(ld.get("keywords")?.includes("AMOC"));
    assert.deepEqual(ld.get("pubDate"), [date("2020-12-09T00:00:00Z")]);
    assert.deepEqual(ld.get("southBoundCoord"), [-28.09816]);
  });

  it("a document that does not parse throws (the indexer then keeps the system metadata only)", () => {
    const extractor = extractorFor("eml://ecoinformatics.org/eml-2.1.1");
    assert.throws(() => extractor?.(Buffer.from("<eml:eml><dataset>")));
    assert.equal(extractorFor("text/csv"), undefined);
  });
});
