/**
 * The DOI citation on landing pages: shown in every theme for an object whose identifier is a DOI, not for others,
 * as DataCite cites: Creators (PublicationYear). Title. Publisher. https://doi.org/DOI
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { extractMetadata } from "../../../src/views/extract/index.ts";
import type { ViewLinks, ViewModel } from "../../../src/views/model.ts";
import { THEMES } from "../../../src/views/themes.ts";

const links: ViewLinks = {
  object: (pid) => `/mn/v2/object/${encodeURIComponent(pid)}`,
  view: (pid) => `/mn/v2/views/default/${encodeURIComponent(pid)}`,
  package: (pid) => `/mn/v2/packages/${encodeURIComponent(pid)}`,
};

function model(identifier: string, archived = false): ViewModel {
  return {
    sysmeta: {
      identifier,
      formatId: "eml://ecoinformatics.org/eml-2.1.1",
      size: 10,
      checksum: { algorithm: "MD5", value: "x" },
      rightsHolder: "CN=owner",
      accessPolicy: [],
      replicas: [],
      archived,
      dateUploaded: new Date("2024-01-02T00:00:00Z"),
    },
    metadata: extractMetadata(
      readFileSync(new URL("../../fixtures/views/eml-lake.xml", import.meta.url)),
      "eml://ecoinformatics.org/eml-2.1.1",
      "EML",
    ),
    packages: [],
    repository: "Lake Data Repository",
  };
}

describe("DOI citation on landing pages", () => {
  for (const theme of THEMES) {
    it(`${theme.key}: creators, year, title, publisher and the doi.org link; archived versions say so`, () => {
      const page = theme.render(model("doi:10.5072/ab12-cd34"), links);
      assert.match(
        page,
        /Ada Limnos; Lake Ontiki Field Station \(2024\)\. Water temperature of Lake Ontiki, 2019-2021\. Lake Data Repository\. <a href="https:\/\/doi\.org\/10\.5072\/ab12-cd34">/,
      );
      assert.match(page, /<a href="https:\/\/doi\.org\/10\.5072\/ab12-cd34">/);
      assert.doesNotMatch(page, /class="archived"/);
      assert.match(theme.render(model("doi:10.5072/ab12-cd34", true), links), /class="archived"/);
      assert.doesNotMatch(theme.render(model("urn:uuid:1234"), links), /id="doi"/);
    });
  }
});
