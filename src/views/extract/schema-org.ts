/**
 * schema.org Dataset JSON-LD (science-on-schema.org) to the view model: name, creators (with ORCIDs for the
 * landing page), description, keywords, temporal and spatial coverage, datePublished, license and publisher.
 */
import {
  first,
  identifiersOf,
  isObject,
  type JsonObject,
  list,
  nodes,
  strings,
  typesOf,
} from "../../types/json-ld.ts";
import { emptyModel, type MetadataDetails, type MetadataModel } from "../model.ts";

const ORCID = /(\d{4}-\d{4}-\d{4}-\d{3}[\dX])/;

export function extractSchemaOrg(dataset: JsonObject, standard: string): MetadataModel {
  const model = emptyModel("schema-org", standard);
  const title = first(dataset.name);
  if (title) model.title = title;
  const published = first(dataset.datePublished);
  if (published) model.published = published;
  const creators: MetadataDetails["creators"] = nodes(dataset.creator).flatMap((c) => {
    if (typeof c === "string") return c.trim() ? [{ name: c.trim(), kind: "person" as const }] : [];
    if (!isObject(c)) return [];
    const name = first(c.name) ?? [...strings(c.givenName), ...strings(c.familyName)].join(" ");
    if (!name) return [];
    const orcid = identifiersOf(c)
      .map((id) => ORCID.exec(id)?.[1])
      .find(Boolean);
    const kind = typesOf(c).includes("Organization") ? ("organization" as const) : ("person" as const);
    return [{ name, kind, ...(orcid ? { orcid } : {}) }];
  });
  model.creators = creators.map((c) => c.name);
  model.abstract = strings(dataset.description);
  model.keywords = list(dataset.keywords).flatMap((k) =>
    typeof k === "string"
      ? k
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : isObject(k)
        ? strings(k.name)
        : [],
  );
  model.coverage.temporal = strings(dataset.temporalCoverage).map((t) =>
    t
      .replace(/^\.\.\//, "? to ")
      .replace(/\/\.\.$/, " to ?")
      .replace("/", " to "),
  );
  for (const place of list(dataset.spatialCoverage)) {
    if (!isObject(place)) {
      const name = first(place);
      if (name) model.coverage.places.push(name);
      continue;
    }
    const name = first(place.name) ?? first(place.description);
    const boxes = list(place.geo)
      .filter(isObject)
      .flatMap((geo) => {
        const n = (first(geo.box) ?? "").split(/[\s,]+/);
        return n.length === 4
          ? [{ south: n[0] ?? "", west: n[1] ?? "", north: n[2] ?? "", east: n[3] ?? "" }]
          : [];
      });
    for (const box of boxes) model.coverage.boxes.push({ ...box, ...(name ? { description: name } : {}) });
    if (!boxes.length && name) model.coverage.places.push(name);
  }
  const license = list(dataset.license)[0];
  const licenseUrl = isObject(license) ? (first(license.url) ?? first(license["@id"])) : first(license);
  const licenseName = isObject(license) ? first(license.name) : undefined;
  const publisher = list(dataset.publisher)
    .map((p) => (isObject(p) ? first(p.name) : first(p)))
    .find(Boolean);
  model.details = {
    creators,
    variables: nodes(dataset.variableMeasured).flatMap((v) => {
      const name = isObject(v) ? first(v.name) : first(v);
      if (!name) return [];
      const description = isObject(v) ? first(v.description) : undefined;
      const unit = isObject(v) ? first(v.unitText) : undefined;
      return [{ name, ...(description ? { description } : {}), ...(unit ? { unit } : {}) }];
    }),
    ...(publisher ? { publisher } : {}),
    ...(licenseUrl || licenseName
      ? {
          license: {
            ...(licenseName ? { name: licenseName } : {}),
            ...(licenseUrl && /^https?:\/\//.test(licenseUrl) ? { url: licenseUrl } : {}),
            ...(licenseUrl && !/^https?:\/\//.test(licenseUrl) ? { text: licenseUrl } : {}),
          },
        }
      : {}),
  };
  return model;
}
