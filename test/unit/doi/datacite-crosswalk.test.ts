/**
 * The DataCite crosswalk: DataCite's own example records round-trip (parse, emit, validate, parse again), and
 * records made from EML, ISO 19139, FGDC and Dublin Core documents validate against kernel 4.6 with the
 * properties each document holds.
 */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { describe, it } from "node:test";
import {
  type DataciteSource,
  dataciteRecordFor,
  dataciteXmlFor,
  emitDatacite,
  parseDatacite,
} from "../../../src/doi/datacite/index.ts";
import type { SystemMetadata } from "../../../src/types/sysmeta.ts";
import { DATACITE_DIR, validateDatacite } from "../../helpers/validation/datacite-xsd.ts";

const fixture = (name: string) => readFile(new URL(`../../fixtures/${name}`, import.meta.url));

function sysmeta(overrides: Partial<SystemMetadata> = {}): SystemMetadata {
  return {
    identifier: "doi:10.5072/FK2ABC",
    formatId: "eml://ecoinformatics.org/eml-2.1.1",
    size: 1234,
    checksum: { algorithm: "SHA-256", value: "00" },
    rightsHolder: "http://orcid.org/0000-0002-1825-0097",
    accessPolicy: [{ subjects: ["public"], permissions: ["read"] }],
    replicas: [],
    dateUploaded: new Date("2024-03-02T10:00:00Z"),
    dateSysMetadataModified: new Date("2024-03-05T10:00:00Z"),
    ...overrides,
  };
}

function source(bytes: Buffer, formatId: string, overrides: Partial<DataciteSource> = {}): DataciteSource {
  return {
    doi: "doi:10.5072/FK2ABC",
    sysmeta: sysmeta({ formatId }),
    metadata: { bytes, formatId },
    isMetadata: true,
    publisher: "Lake Data Repository",
    related: {
      previousVersion: "urn:uuid:11111111-2222-3333-4444-555555555555",
      nextVersion: "doi:10.5072/FK2NEXT",
      packages: ["resource_map_doi:10.5072/FK2ABC"],
      parts: [],
      describes: ["urn:uuid:data-1"],
      describedBy: [],
    },
    resolveUrl: (pid) => `https://cn.example.org/cn/v2/resolve/${encodeURIComponent(pid)}`,
    ...overrides,
  };
}

describe("DataCite's example records", async () => {
  const examples = (await readdir(`${DATACITE_DIR}example`)).filter((f) => f.endsWith(".xml"));
  for (const name of examples) {
    it(`${name} parses, emits valid kernel-4.6 XML, and reads back the same`, async () => {
      const record = parseDatacite(await readFile(`${DATACITE_DIR}example/${name}`));
      const emitted = emitDatacite(record);
      await validateDatacite(emitted);
      assert.deepEqual(parseDatacite(emitted), record);
    });
  }

  it("keeps the full example's creators, identifiers, rights, geolocations and funding", async () => {
    const record = parseDatacite(await readFile(`${DATACITE_DIR}example/datacite-example-full-v4.xml`));
    assert.equal(record.doi, "10.82433/B09Z-4K37");
    assert.equal(record.creators[0]?.nameIdentifiers[0]?.scheme, "ORCID");
    assert.equal(record.creators[0]?.affiliations[0]?.identifier, "https://ror.org/04wxnsj81");
    assert.equal(record.rights[0]?.identifier, "CC-BY-4.0");
    assert.equal(record.geoLocations[0]?.polygons[0]?.length, 5);
    assert.equal(record.fundingReferences[0]?.awardNumber, "12345");
    assert.ok(record.relatedIdentifiers.some((r) => r.relationType === "IsNewVersionOf"));
  });
});

describe("records made from science metadata", () => {
  it("EML 2.2: creators, licence, funding, contact and relations, valid against kernel 4.6", async () => {
    const bytes = await fixture("search/eml-2.2.0-testdoc.xml");
    const xml = dataciteXmlFor(source(bytes, "https://eml.ecoinformatics.org/eml-2.2.0"));
    await validateDatacite(xml);
    const record = parseDatacite(xml);
    assert.equal(record.doi, "10.5072/FK2ABC");
    assert.deepEqual(record.titles, [{ title: "EML Annotation Example" }]);
    assert.equal(record.creators[0]?.name, "Annotator, EML");
    assert.equal(record.creators[0]?.familyName, "Annotator");
    assert.equal(record.publisher.name, "Lake Data Repository");
    assert.equal(record.resourceTypeGeneral, "Dataset");
    assert.equal(record.rights[0]?.identifier, "CC-BY-4.0");
    assert.deepEqual(record.fundingReferences[0], {
      funderName: "My Funder",
      funderIdentifier: "MY_FUNDER",
      funderIdentifierType: "Other",
      awardNumber: "AWARD1",
      awardURI: "https://example.org/someaward",
      awardTitle: "An example award title",
    });
    assert.ok(record.contributors.some((c) => c.contributorType === "ContactPerson"));
    assert.ok(record.contributors.some((c) => c.contributorType === "ProjectLeader"));
    const relation = (type: string) => record.relatedIdentifiers.filter((r) => r.relationType === type);
    assert.deepEqual(relation("IsPreviousVersionOf"), [
      { value: "10.5072/FK2NEXT", type: "DOI", relationType: "IsPreviousVersionOf" },
    ]);
    assert.equal(relation("IsNewVersionOf")[0]?.type, "URL");
    assert.equal(relation("IsPartOf").length, 1);
    assert.equal(relation("Describes").length, 1);
  });

  it("EML 2.1: coverage as dates and a box, keywords as subjects, abstract and methods", async () => {
    const bytes = await fixture("views/eml-lake.xml");
    const xml = dataciteXmlFor(source(bytes, "eml://ecoinformatics.org/eml-2.1.1"));
    await validateDatacite(xml);
    const record = parseDatacite(xml);
    assert.deepEqual(
      record.subjects.map((s) => s.subject),
      ["limnology", "water temperature"],
    );
    assert.ok(record.dates.some((d) => d.dateType === "Coverage" && d.date === "2019-05-01/2021-10-31"));
    assert.deepEqual(record.geoLocations[0]?.box, {
      west: "-89.41",
      east: "-89.38",
      south: "43.08",
      north: "43.10",
    });
    assert.equal(record.creators[1]?.nameType, "Organizational");
    assert.ok(record.descriptions.some((d) => d.descriptionType === "Methods"));
    assert.equal(record.publicationYear, "2024");
  });

  it("an ORCID in an EML userId becomes the creator's name identifier", async () => {
    const eml = `<eml:eml xmlns:eml="https://eml.ecoinformatics.org/eml-2.2.0" packageId="x" system="s"><dataset>
      <title>T</title><creator><individualName><givenName>Ann</givenName><surName>Lee</surName></individualName>
      <organizationName>Field Station</organizationName>
      <userId directory="https://orcid.org">https://orcid.org/0000-0002-1825-0097</userId></creator>
      <pubDate>2021-06-01</pubDate></dataset></eml:eml>`;
    const record = dataciteRecordFor(source(Buffer.from(eml), "https://eml.ecoinformatics.org/eml-2.2.0"));
    assert.deepEqual(record.creators[0]?.nameIdentifiers, [
      { value: "https://orcid.org/0000-0002-1825-0097", scheme: "ORCID", schemeURI: "https://orcid.org" },
    ]);
    assert.deepEqual(record.creators[0]?.affiliations, [{ name: "Field Station" }]);
    assert.equal(record.publicationYear, "2021");
    await validateDatacite(emitDatacite(record));
  });

  for (const [name, formatId] of [
    ["search/iso19139-noaa.xml", "http://www.isotc211.org/2005/gmd"],
    ["search/fgdc-nasa-FEDGPS1293.xml", "FGDC-STD-001-1998"],
    ["search/oai-dc.xml", "http://www.openarchives.org/OAI/2.0/oai_dc/"],
    ["views/dublin-core.xml", "http://purl.org/dc/elements/1.1/"],
  ] as const) {
    it(`${name}: a valid record with its title`, async () => {
      const xml = dataciteXmlFor(source(await fixture(name), formatId));
      await validateDatacite(xml);
      assert.notEqual(parseDatacite(xml).titles[0]?.title, ":unav");
    });
  }

  it("a data file is titled by its name and its dataset, and is described by the metadata", async () => {
    const bytes = await fixture("views/eml-lake.xml");
    const data: DataciteSource = {
      ...source(bytes, "eml://ecoinformatics.org/eml-2.1.1"),
      sysmeta: sysmeta({ formatId: "text/csv", fileName: "temperatures.csv" }),
      isMetadata: false,
      related: { packages: [], parts: [], describes: [], describedBy: ["doi:10.5072/FK2META"] },
    };
    const record = parseDatacite(dataciteXmlFor(data));
    assert.equal(record.titles[0]?.title, "temperatures.csv (Water temperature of Lake Ontiki, 2019-2021)");
    assert.deepEqual(record.formats, ["text/csv"]);
    assert.deepEqual(record.relatedIdentifiers, [
      { value: "10.5072/FK2META", type: "DOI", relationType: "IsDescribedBy" },
    ]);
  });

  it("an archived object says so; a record from nothing still validates", async () => {
    const archived = dataciteRecordFor({
      ...source(Buffer.from("not xml"), "text/plain"),
      sysmeta: sysmeta({ archived: true }),
    });
    assert.ok(archived.dates.some((d) => d.dateType === "Withdrawn"));
    assert.equal(archived.creators.length, 0);
    await validateDatacite(emitDatacite(archived));
  });

  it("values the XSD refuses are left out: coordinates out of range, short polygons, bad languages", async () => {
    const record = parseDatacite(await readFile(`${DATACITE_DIR}example/datacite-example-full-v4.xml`));
    record.geoLocations = [
      {
        box: { west: "-200", east: "10", south: "0", north: "1" },
        polygons: [[{ latitude: "1", longitude: "1" }]],
      },
      { point: { latitude: "north", longitude: "2" }, polygons: [] },
    ];
    record.language = "not a language!";
    record.publicationYear = "sometime";
    await validateDatacite(emitDatacite(record));
  });
});
