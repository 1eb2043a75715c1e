/** What an anonymised reviewer link does to EML and to a resource map: names gone, the rest kept, the XML well formed. */
import assert from "node:assert/strict";
import { it } from "node:test";
import {
  anonymiseEml,
  anonymiseResourceMap,
  isEmlFormat,
  WITHHELD,
} from "../../src/services/mn/review/anonymise.ts";
import { parseXml } from "../../src/types/xml.ts";

const party = (tag: string, inner = "") =>
  `<${tag} id="jd" system="knb" scope="document"><individualName><salutation>Dr</salutation><givenName>Jane</givenName><surName>Doe</surName></individualName>` +
  `<organizationName>Doe Lab</organizationName><electronicMailAddress>jane@doe.example</electronicMailAddress>` +
  `<userId directory="https://orcid.org">https://orcid.org/0000-0001-2345-6789</userId>${inner}</${tag}>`;

it("hides every responsible party of EML, keeping roles and the rest of the document", () => {
  const eml = Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?><!-- by Jane Doe --><eml:eml xmlns:eml="eml://ecoinformatics.org/eml-2.1.1" packageId="x"><dataset>` +
      `<title>Soil &amp; water &lt;2020&gt;</title>${party("creator")}${party("metadataProvider")}` +
      `${party("associatedParty", "<role>owner</role>")}${party("contact")}${party("publisher")}` +
      `<contact><references>jd</references></contact>` +
      `<methods><methodStep><description><para>Dug.</para></description><citation><creator><individualName><surName>Doe</surName></individualName></creator></citation></methodStep></methods>` +
      `<project><title>P</title>${party("personnel", "<role>principalInvestigator</role>")}</project>` +
      `<annotation><individualName><surName>Doe</surName></individualName></annotation>` +
      `</dataset><additionalMetadata><metadata>Jane Doe</metadata></additionalMetadata></eml:eml>`,
  );
  const out = anonymiseEml(eml).toString();
  for (const text of ["Jane", "Doe", "Dr<", "orcid", "jane@", 'id="jd"', "additionalMetadata", "<!--"])
    assert.ok(!out.includes(text), `${text} is in ${out}`);
  assert.ok(out.includes("<title>Soil &amp; water &lt;2020&gt;</title>"));
  assert.ok(
    out.includes(
      `<associatedParty scope="document"><organizationName>${WITHHELD}</organizationName><role>owner</role></associatedParty>`,
    ),
  );
  assert.ok(
    out.includes(
      `<personnel scope="document"><organizationName>${WITHHELD}</organizationName><role>principalInvestigator</role></personnel>`,
    ),
  );
  assert.ok(out.includes("<para>Dug.</para>"));
  const root = parseXml(out, Error as never);
  assert.equal(root.localName, "eml");
});

it("refuses what is not EML, and a document with a DOCTYPE", () => {
  assert.throws(() => anonymiseEml(Buffer.from("<metadata><creator>Jane</creator></metadata>")), /not EML/);
  assert.throws(
    () => anonymiseEml(Buffer.from('<!DOCTYPE x [<!ENTITY n "Jane">]><eml:eml xmlns:eml="e">&n;</eml:eml>')),
    /cannot be anonymised/,
  );
});

it("takes the agents out of a resource map and keeps its aggregation", () => {
  const map = Buffer.from(
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:foaf="http://xmlns.com/foaf/0.1/" xmlns:ore="http://www.openarchives.org/ore/terms/">' +
      '<rdf:Description rdf:about="m"><dcterms:creator rdf:resource="#agent"/><ore:describes rdf:resource="a"/></rdf:Description>' +
      '<rdf:Description rdf:about="#agent"><foaf:name>Jane Doe</foaf:name><foaf:mbox>mailto:jane@doe.example</foaf:mbox></rdf:Description>' +
      '<rdf:Description rdf:about="a"><ore:aggregates rdf:resource="d"/></rdf:Description></rdf:RDF>',
  );
  const out = anonymiseResourceMap(map).toString();
  assert.ok(!out.includes("Jane") && !out.includes("creator") && !out.includes("mbox"));
  assert.ok(out.includes('<ore:aggregates rdf:resource="d"/>'));
});

it("knows the EML formats", () => {
  assert.ok(isEmlFormat("eml://ecoinformatics.org/eml-2.1.1"));
  assert.ok(isEmlFormat("https://eml.ecoinformatics.org/eml-2.2.0"));
  assert.ok(!isEmlFormat("http://www.isotc211.org/2005/gmd"));
});
