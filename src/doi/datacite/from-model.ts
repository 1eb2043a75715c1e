/**
 * Documents read by the landing page's extractors (ISO 19139, FGDC, Dublin Core, other XML): their view model
 * (src/views/model.ts) in DataCite's terms. Creators there are plain names, so they carry no identifiers.
 */
import type { MetadataModel } from "../../views/model.ts";
import { type DescribedFields, emptyFields } from "./fields.ts";
import { personalName } from "./names.ts";

/** A W3CDTF date or an RKMS-ISO8601 range such as the extractors write them ("2001-01-01 to 2002-12-31"). */
function coverageDate(written: string): string | undefined {
  const range = /^(\S+) to (\S+)$/.exec(written.trim());
  const parts = range ? [range[1] ?? "", range[2] ?? ""] : [written.trim()];
  const date = /^\d{4}(-\d{2}(-\d{2}([T ][\d:.]+Z?)?)?)?$/;
  if (!parts.every((p) => date.test(p) || p === "?")) return undefined;
  return parts.map((p, i) => (p === "?" ? (i === 0 ? "unknown" : "open") : p.replace(" ", "T"))).join("/");
}

export function fieldsFromModel(model: MetadataModel): DescribedFields {
  const fields = emptyFields();
  if (model.title) fields.titles.push({ title: model.title });
  fields.creators = model.creators.map((c) => ({
    ...personalName(c),
    nameIdentifiers: [],
    affiliations: [],
  }));
  fields.subjects = model.keywords.map((subject) => ({ subject }));
  fields.descriptions = [
    ...model.abstract.map((text) => ({ text, descriptionType: "Abstract" })),
    ...model.methods.map((text) => ({ text, descriptionType: "Methods" })),
  ];
  for (const written of model.coverage.temporal) {
    const date = coverageDate(written);
    if (date) fields.dates.push({ date, dateType: "Coverage" });
  }
  for (const box of model.coverage.boxes) {
    const { description, ...bounds } = box;
    fields.geoLocations.push({ ...(description ? { place: description } : {}), box: bounds, polygons: [] });
  }
  for (const place of model.coverage.places) fields.geoLocations.push({ place, polygons: [] });
  if (model.published) fields.published = model.published;
  return fields;
}
