/**
 * EML 2.0.0 - 2.2.0 (the fields of dataone-indexer's application-context-eml-base.xml): paths are under
 * //dataset; `text` is all text of the dataset except its data tables.
 */
import type { XmlElement } from "../../types/xml-parse.ts";
import { readLenientDate } from "../schema/dates.ts";
import { DocumentBuilder, type SearchDocument } from "../schema/document.ts";
import { addBoxes, type Box, readBox } from "./geo.ts";
import { children, descendants, firstText, localName, select, textOf, texts } from "./xml-tree.ts";

export function extractEml(root: XmlElement): SearchDocument {
  const doc = new DocumentBuilder();
  const dataset = select(root, "//dataset")[0];
  if (!dataset) return doc.fields;
  const creators = children(dataset, "creator");
  const first = creators[0];
  const firstPerson = children(first, "individualName")[0];
  const given = texts(firstPerson, "givenName").join(" ");
  const surname = firstText(firstPerson, "surName");
  doc
    .add("title", firstText(dataset, "title"))
    .add("abstract", textOf(children(dataset, "abstract")[0]))
    .add("keywords", ...texts(dataset, "keywordSet/keyword"))
    .add("pubDate", readDate(firstText(dataset, "pubDate")))
    .add("author", personName(firstPerson) ?? firstText(first, "organizationName"))
    .add("authorGivenName", given)
    .add("authorSurName", surname)
    .add("authorGivenNameSort", given)
    .add("authorSurNameSort", surname)
    .add("authorLastName", ...texts(dataset, "creator/individualName/surName"))
    .add("investigator", ...texts(dataset, "creator/individualName/surName"))
    .add("contactOrganization", ...texts(dataset, "creator/organizationName"))
    .add("origin", ...creators.map(partyName))
    .add("project", ...texts(dataset, "project/title"))
    .add("funding", ...select(dataset, "project/funding").map(textOf))
    .add("funderName", ...texts(dataset, "project/award/funderName"))
    .add("funderIdentifier", ...texts(dataset, "project/award/funderIdentifier"))
    .add("awardNumber", ...texts(dataset, "project/award/awardNumber"))
    .add("awardTitle", ...texts(dataset, "project/award/title"))
    .add("site", ...texts(dataset, "coverage/geographicCoverage/geographicDescription"))
    .add("licenseName", ...texts(dataset, "licensed/licenseName"))
    .add("licenseUrl", ...texts(dataset, "licensed/url"))
    .add(
      "text",
      dataset.children
        .filter((c) => localName(c) !== "dataTable")
        .map(textOf)
        .join(" "),
    );
  const temporal = select(dataset, "coverage/temporalCoverage");
  doc
    .first(
      "beginDate",
      [
        ...temporal.flatMap((t) => texts(t, "rangeOfDates/beginDate/calendarDate")),
        ...temporal.flatMap((t) => texts(t, "singleDateTime/calendarDate")),
      ].map(readDate),
    )
    .first(
      "endDate",
      [
        ...temporal.flatMap((t) => texts(t, "rangeOfDates/endDate/calendarDate")),
        ...temporal.flatMap((t) => texts(t, "singleDateTime/calendarDate")),
      ].map(readDate),
    );
  const boxes = select(dataset, "coverage/geographicCoverage/boundingCoordinates")
    .map((b) =>
      readBox(
        firstText(b, "northBoundingCoordinate"),
        firstText(b, "southBoundingCoordinate"),
        firstText(b, "eastBoundingCoordinate"),
        firstText(b, "westBoundingCoordinate"),
      ),
    )
    .filter((b): b is Box => b !== undefined);
  addBoxes(doc, boxes);
  addTaxonomy(doc, dataset);
  addAttributes(doc, dataset);
  return doc.fields;
}

const readDate = (text: string | undefined) => (text === undefined ? undefined : readLenientDate(text));

function personName(person: XmlElement | undefined): string | undefined {
  if (!person) return undefined;
  const name = [...texts(person, "givenName"), firstText(person, "surName")].filter(Boolean).join(" ");
  return name || undefined;
}

/** origin: a creator's person name, else its organisation, else its position. */
function partyName(party: XmlElement): string | undefined {
  return (
    personName(children(party, "individualName")[0]) ??
    firstText(party, "organizationName") ??
    firstText(party, "positionName")
  );
}

const RANKS = ["kingdom", "phylum", "class", "order", "family", "genus", "species"] as const;

/** Taxon ranks by name (case ignored); scientificName is "Genus species" from nested classifications. */
function addTaxonomy(doc: DocumentBuilder, dataset: XmlElement): void {
  for (const node of descendants(dataset, "taxonomicClassification")) {
    const rank = firstText(node, "taxonRankName")?.toLowerCase();
    const value = firstText(node, "taxonRankValue");
    if (!rank || !value) continue;
    const known = RANKS.find((r) => r === rank);
    if (known) doc.add(known, value);
    if (known === "genus") {
      for (const child of children(node, "taxonomicClassification")) {
        if (firstText(child, "taxonRankName")?.toLowerCase() !== "species") continue;
        const species = firstText(child, "taxonRankValue");
        if (species) doc.add("scientificName", species.includes(" ") ? species : `${value} ${species}`);
      }
    }
  }
}

function addAttributes(doc: DocumentBuilder, dataset: XmlElement): void {
  for (const attr of descendants(dataset, "attribute")) {
    if (localName(attr) !== "attribute" || !children(attr, "attributeName").length) continue;
    const name = firstText(attr, "attributeName");
    const label = firstText(attr, "attributeLabel");
    const definition = firstText(attr, "attributeDefinition");
    const unit =
      textOf(descendants(attr, "standardUnit")[0]) || textOf(descendants(attr, "customUnit")[0]) || undefined;
    doc
      .add("attributeName", name)
      .add("attributeLabel", label)
      .add("attributeDescription", definition)
      .add("attributeUnit", unit)
      .add("attribute", [name, label, definition, unit].filter(Boolean).join(" "));
  }
}
