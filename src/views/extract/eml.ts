/** Ecological Metadata Language 2.x: dataset title, creators, abstract, keywords, coverage, methods, entities. */
import type { XmlElement } from "../../types/xml-parse.ts";
import { emptyModel, type MetadataModel } from "../model.ts";
import { children, descendants, firstText, paragraphs, path, text, texts } from "../xml-tree.ts";
import { emlDetails } from "./eml-details.ts";

const ENTITY_TYPES = [
  "dataTable",
  "otherEntity",
  "spatialRaster",
  "spatialVector",
  "storedProcedure",
  "view",
];

export function extractEml(root: XmlElement, standard: string): MetadataModel {
  const model = emptyModel("eml", standard);
  const dataset = children(root, "dataset")[0];
  model.title = firstText(dataset, "title");
  model.published = firstText(dataset, "pubDate") ?? firstText(root, "pubDate");
  model.creators = path(dataset, "creator").map(partyName).filter(Boolean);
  model.abstract = paragraphs(children(dataset, "abstract")[0]);
  model.keywords = texts(dataset, "keywordSet/keyword");
  const coverage = children(dataset, "coverage")[0];
  for (const t of path(coverage, "temporalCoverage")) {
    const single = texts(t, "singleDateTime/calendarDate");
    const begin = firstText(t, "rangeOfDates/beginDate/calendarDate");
    const end = firstText(t, "rangeOfDates/endDate/calendarDate");
    if (begin || end) model.coverage.temporal.push(`${begin ?? "?"} to ${end ?? "?"}`);
    model.coverage.temporal.push(...single);
  }
  for (const g of path(coverage, "geographicCoverage")) {
    const box = children(g, "boundingCoordinates")[0];
    const description = firstText(g, "geographicDescription");
    if (box) {
      model.coverage.boxes.push({
        west: firstText(box, "westBoundingCoordinate") ?? "",
        east: firstText(box, "eastBoundingCoordinate") ?? "",
        north: firstText(box, "northBoundingCoordinate") ?? "",
        south: firstText(box, "southBoundingCoordinate") ?? "",
        ...(description ? { description } : {}),
      });
    } else if (description) model.coverage.places.push(description);
  }
  model.methods = path(dataset, "methods/methodStep").flatMap((step) =>
    paragraphs(children(step, "description")[0]),
  );
  for (const type of ENTITY_TYPES) {
    for (const entity of children(dataset, type)) {
      const url = descendants(entity, "url").map(text).find(Boolean);
      const id = entity.attributes.get("id");
      const description = firstText(entity, "entityDescription");
      model.entities.push({
        name: firstText(entity, "entityName") ?? "(unnamed entity)",
        kind: type,
        ...(description ? { description } : {}),
        ...(id ? { id } : {}),
        ...(url ? { url } : {}),
      });
    }
  }
  model.details = emlDetails(dataset, model.creators);
  return model;
}

export function partyName(party: XmlElement): string {
  const person = children(party, "individualName")[0];
  if (person)
    return [...texts(person, "salutation"), ...texts(person, "givenName"), ...texts(person, "surName")].join(
      " ",
    );
  return firstText(party, "organizationName") ?? firstText(party, "positionName") ?? text(party);
}
