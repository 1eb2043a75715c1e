/**
 * The DataCite crosswalk from schema.org Dataset JSON-LD (science-on-schema.org): a document shaped like the
 * landing page's (and SOSO's guidelines) gives a record that validates against kernel 4.6 with its creators,
 * subjects, dates, places, licence and funding; a document that is not JSON gives the system-metadata record.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, it } from "node:test";
import { type DataciteSource, dataciteXmlFor, parseDatacite } from "../../../src/doi/datacite/index.ts";
import type { SystemMetadata } from "../../../src/types/sysmeta.ts";
import { validateDatacite } from "../../helpers/validation/datacite-xsd.ts";

const FORMAT = "science-on-schema.org/Dataset;ld+json";

const soso = {
  "@context": { "@vocab": "http://schema.org/", spdx: "http://spdx.org/rdf/terms#" },
  "@type": "Dataset",
  "@id": "https://mn.example.org/view/doi:10.5072/FK2SOSO",
  name: "Water temperature of Lake Ontiki, 2019-2021",
  description:
    "Hourly water temperature at three depths of Lake Ontiki, recorded by a moored thermistor chain.",
  creator: {
    "@list": [
      {
        "@id": "https://orcid.org/0000-0002-1825-0097",
        "@type": "Person",
        name: "Ann Lee",
        givenName: "Ann",
        familyName: "Lee",
        affiliation: { "@type": "Organization", "@id": "https://ror.org/01an7q238", name: "Field Station" },
      },
      {
        "@type": "Person",
        name: "Bo Chen",
        identifier: {
          "@type": "PropertyValue",
          propertyID: "https://registry.identifiers.org/registry/orcid",
          value: "orcid:0000-0001-5109-3700",
          url: "https://orcid.org/0000-0001-5109-3700",
        },
      },
      { "@type": "Organization", name: "Lake Observatory" },
    ],
  },
  keywords: [
    "limnology, water temperature",
    {
      "@type": "DefinedTerm",
      name: "LAKES",
      inDefinedTermSet: {
        "@type": "DefinedTermSet",
        name: "GCMD",
        url: "https://gcmd.earthdata.nasa.gov/kms",
      },
    },
  ],
  temporalCoverage: "2019-05-01/2021-10-31",
  datePublished: "2022-03-15",
  spatialCoverage: [
    {
      "@type": "Place",
      name: "Lake Ontiki",
      geo: { "@type": "GeoShape", box: "43.08 -89.41 43.10 -89.38" },
    },
    { "@type": "Place", geo: { "@type": "GeoCoordinates", latitude: 43.09, longitude: -89.4 } },
  ],
  license: "https://spdx.org/licenses/CC-BY-4.0",
  funding: {
    "@type": "MonetaryGrant",
    identifier: "DEB-1234567",
    name: "Long-term lake observations",
    url: "https://www.nsf.gov/awardsearch/showAward?AWD_ID=1234567",
    funder: {
      "@type": "FundingAgency",
      "@id": "https://ror.org/021nxhr62",
      name: "National Science Foundation",
    },
  },
  publisher: { "@type": "Organization", name: "Lake Data Repository" },
};

function source(bytes: Buffer): DataciteSource {
  const sysmeta: SystemMetadata = {
    identifier: "doi:10.5072/FK2SOSO",
    formatId: FORMAT,
    size: bytes.length,
    checksum: { algorithm: "SHA-256", value: "00" },
    rightsHolder: "http://orcid.org/0000-0002-1825-0097",
    accessPolicy: [{ subjects: ["public"], permissions: ["read"] }],
    replicas: [],
    dateUploaded: new Date("2024-03-02T10:00:00Z"),
    dateSysMetadataModified: new Date("2024-03-05T10:00:00Z"),
  };
  return {
    doi: "doi:10.5072/FK2SOSO",
    sysmeta,
    metadata: { bytes, formatId: FORMAT },
    isMetadata: true,
    publisher: "Lake Data Repository",
    related: { packages: [], parts: [], describes: [], describedBy: [] },
  };
}

describe("DataCite records from schema.org JSON-LD", () => {
  it("a SOSO Dataset: creators with ORCIDs and affiliation, subjects, dates, places, licence, funding", async () => {
    const xml = dataciteXmlFor(source(Buffer.from(JSON.stringify(soso))));
    await validateDatacite(xml);
    const record = parseDatacite(xml);
    assert.deepEqual(record.titles, [{ title: "Water temperature of Lake Ontiki, 2019-2021" }]);
    assert.equal(record.creators.length, 3);
    assert.equal(record.creators[0]?.name, "Lee, Ann");
    assert.deepEqual(record.creators[0]?.nameIdentifiers, [
      { value: "https://orcid.org/0000-0002-1825-0097", scheme: "ORCID", schemeURI: "https://orcid.org" },
    ]);
    assert.deepEqual(record.creators[0]?.affiliations, [
      {
        name: "Field Station",
        identifier: "https://ror.org/01an7q238",
        identifierScheme: "ROR",
        schemeURI: "https://ror.org",
      },
    ]);
    assert.equal(record.creators[1]?.nameIdentifiers[0]?.value, "https://orcid.org/0000-0001-5109-3700");
    assert.equal(record.creators[2]?.nameType, "Organizational");
    assert.equal(record.publisher.name, "Lake Data Repository");
    // The document's publisher is the repository itself: no Distributor repeats it.
    assert.equal(record.contributors.length, 0);
    assert.equal(record.publicationYear, "2022");
    assert.deepEqual(
      record.subjects.map((s) => [s.subject, s.scheme]),
      [
        ["limnology", undefined],
        ["water temperature", undefined],
        ["LAKES", "GCMD"],
      ],
    );
    assert.ok(record.descriptions[0]?.text.startsWith("Hourly water temperature"));
    assert.ok(record.dates.some((d) => d.dateType === "Issued" && d.date === "2022-03-15"));
    assert.ok(record.dates.some((d) => d.dateType === "Coverage" && d.date === "2019-05-01/2021-10-31"));
    assert.deepEqual(record.geoLocations[0], {
      place: "Lake Ontiki",
      box: { west: "-89.41", east: "-89.38", south: "43.08", north: "43.10" },
      polygons: [],
    });
    assert.deepEqual(record.geoLocations[1]?.point, { latitude: "43.09", longitude: "-89.4" });
    assert.equal(record.rights[0]?.identifier, "CC-BY-4.0");
    assert.equal(record.rights[0]?.uri, "https://spdx.org/licenses/CC-BY-4.0");
    assert.deepEqual(record.fundingReferences, [
      {
        funderName: "National Science Foundation",
        funderIdentifier: "https://ror.org/021nxhr62",
        funderIdentifierType: "ROR",
        awardNumber: "DEB-1234567",
        awardURI: "https://www.nsf.gov/awardsearch/showAward?AWD_ID=1234567",
        awardTitle: "Long-term lake observations",
      },
    ]);
  });

  it("a Dataset in an @graph, with another publisher (a Distributor), validates", async () => {
    const bytes = await readFile(new URL("../../fixtures/search/schema-org-bco-dmo.jsonld", import.meta.url));
    const xml = dataciteXmlFor(source(bytes));
    await validateDatacite(xml);
    const record = parseDatacite(xml);
    assert.notEqual(record.titles[0]?.title, ":unav");
    assert.ok(record.creators.length > 0);
    assert.deepEqual(
      record.contributors.map((c) => [c.name, c.contributorType]),
      [["PANGAEA", "Distributor"]],
    );
  });

  it("other ways SOSO writes things: a funder by name, an open interval, a polygon, a licence as a CreativeWork", async () => {
    const doc = {
      ...soso,
      temporalCoverage: "2019-05-01/..",
      spatialCoverage: {
        "@type": "Place",
        geo: { "@type": "GeoShape", polygon: "43.08 -89.41 43.10 -89.41 43.10 -89.38 43.08 -89.41" },
      },
      license: { "@type": "CreativeWork", name: "CC0 1.0", url: "https://spdx.org/licenses/CC0-1.0.html" },
      funding: {
        "@type": "MonetaryGrant",
        funder: "Lake Foundation",
        identifier: "LF-7",
        name: "Lake watch",
      },
    };
    const xml = dataciteXmlFor(source(Buffer.from(JSON.stringify(doc))));
    await validateDatacite(xml);
    const record = parseDatacite(xml);
    assert.ok(record.dates.some((d) => d.dateType === "Coverage" && d.date === "2019-05-01/open"));
    assert.equal(record.geoLocations[0]?.polygons[0]?.length, 4);
    assert.deepEqual(record.rights[0], {
      text: "CC0 1.0",
      uri: "https://spdx.org/licenses/CC0-1.0.html",
      identifier: "CC0-1.0",
      identifierScheme: "SPDX",
      schemeURI: "https://spdx.org/licenses/",
    });
    assert.deepEqual(record.fundingReferences, [
      { funderName: "Lake Foundation", awardNumber: "LF-7", awardTitle: "Lake watch" },
    ]);
  });

  it("a document that is not JSON, or holds no Dataset, gives the system-metadata record", async () => {
    for (const bytes of ['{"name": "unterminated', '{"@type": "Person", "name": "Ann"}']) {
      const xml = dataciteXmlFor(source(Buffer.from(bytes)));
      await validateDatacite(xml);
      const record = parseDatacite(xml);
      assert.equal(record.titles[0]?.title, "doi:10.5072/FK2SOSO");
      assert.equal(record.subjects.length, 0);
    }
  });
});
