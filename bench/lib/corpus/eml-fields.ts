/**
 * The index fields an EML document of the corpus (eml-corpus.ts) gives, drawn straight from the same
 * vocabularies and spreads without writing or parsing XML: for loading millions of index rows quickly
 * (bench/lib/corpus/scale-search-load.ts). Same fields as the EML extractor fills for those documents.
 */

import { addBoxes } from "../../../src/search/extract/geo.ts";
import { DocumentBuilder, type SearchDocument } from "../../../src/search/schema/document.ts";
import {
  GENERA,
  GIVEN,
  KEYWORD_WORDS,
  KEYWORDS,
  ORGS,
  pick,
  random,
  SPECIES,
  SURNAMES,
  siteOf,
} from "./eml-corpus.ts";

export function emlFields(n: number): SearchDocument {
  const rand = random(n + 1);
  const words = (count: number) => Array.from({ length: count }, () => pick(rand, KEYWORD_WORDS)).join(" ");
  const title = `${words(8)} ${n}`;
  const people = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => ({
    given: pick(rand, GIVEN),
    sur: pick(rand, SURNAMES),
  }));
  const org = pick(rand, ORGS);
  const keywords = Array.from({ length: 3 + Math.floor(rand() * 5) }, () => pick(rand, KEYWORDS));
  const south = -60 + rand() * 120;
  const west = -170 + rand() * 330;
  const year = 1970 + Math.floor(rand() * 50);
  const genus = pick(rand, GENERA);
  const species = pick(rand, SPECIES);
  const first = people[0] as { given: string; sur: string };
  const attributes = Array.from({ length: 3 + Math.floor(rand() * 6) }, (_, i) => ({
    name: `${pick(rand, KEYWORD_WORDS)}_${i}`,
    definition: words(6),
  }));
  const doc = new DocumentBuilder()
    .add("title", title)
    .add("abstract", `${words(60)} ${words(40)}`)
    .add("keywords", ...keywords)
    .add("pubDate", Date.UTC(year + 1, 0, 1))
    .add("author", `${first.given} ${first.sur}`)
    .add("authorGivenName", first.given)
    .add("authorSurName", first.sur)
    .add("authorGivenNameSort", first.given)
    .add("authorSurNameSort", first.sur)
    .add("authorLastName", ...people.map((p) => p.sur))
    .add("investigator", ...people.map((p) => p.sur))
    .add("contactOrganization", org)
    .add("origin", ...people.map((p) => `${p.given} ${p.sur}`), org)
    .add("project", words(4))
    .add("site", siteOf(rand))
    .add("beginDate", Date.UTC(year, 0, 1))
    .add("endDate", Date.UTC(year + 1 + Math.floor(rand() * 5), 11, 31));
  const east = west + rand() * 10;
  addBoxes(doc, [{ north: south + rand() * 10, south, east, west }]);
  doc
    .add("genus", genus)
    .add("scientificName", `${genus} ${species}`)
    .add("species", species)
    .add("attributeName", ...attributes.map((a) => a.name))
    .add("attributeDescription", ...attributes.map((a) => a.definition))
    .add("attributeUnit", "meter")
    .add("attribute", ...attributes.map((a) => `${a.name} ${a.definition} meter`));
  return doc.fields;
}
