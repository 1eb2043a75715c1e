/**
 * A schema.org Dataset in JSON-LD (science-on-schema.org, format `science-on-schema.org/Dataset;ld+json`) to
 * DataCite properties: creators (ORCID from `@id`, `identifier` or `url`; affiliation), name, description,
 * keywords, temporalCoverage, datePublished, spatialCoverage (GeoShape box or polygon, GeoCoordinates), license,
 * funding (MonetaryGrant) and the document's publisher (a Distributor: DataCite's publisher is the repository).
 * Plain JSON is read as written: no remote @context is fetched, and terms are matched by their schema.org names.
 */

import {
  first,
  identifiersOf,
  isObject,
  type Json,
  list,
  nodes,
  readDataset,
  strings,
  typesOf,
} from "../../types/json-ld.ts";
import type { DescribedFields } from "./fields.ts";
import { emptyFields } from "./fields.ts";
import { funderType, orcidOf } from "./names.ts";
import type { Affiliation, DataciteName, GeoLocation, Point, Rights, Subject } from "./record.ts";

/** What a schema.org Dataset says; undefined when the bytes are not JSON or hold no Dataset. */
export function fieldsFromSchemaOrg(bytes: Buffer): DescribedFields | undefined {
  const dataset = readDataset(bytes);
  if (!dataset) return undefined;
  const fields = emptyFields();
  fields.titles = [
    ...strings(dataset.name)
      .slice(0, 1)
      .map((title) => ({ title })),
    ...strings(dataset.alternateName).map((title) => ({ title, titleType: "AlternativeTitle" })),
  ];
  fields.creators = nodes(dataset.creator)
    .map(party)
    .filter((p): p is DataciteName => !!p);
  fields.contributors = nodes(dataset.contributor)
    .map(party)
    .filter((p): p is DataciteName => !!p)
    .map((p) => ({ ...p, contributorType: "Other" }));
  for (const publisher of list(dataset.publisher)) {
    const name = isObject(publisher) ? first(publisher.name) : first(publisher);
    if (name)
      fields.contributors.push({
        name,
        nameType: "Organizational",
        nameIdentifiers: [],
        affiliations: [],
        contributorType: "Distributor",
      });
  }
  fields.subjects = list(dataset.keywords).flatMap(subjects);
  fields.descriptions = strings(dataset.description).map((text) => ({ text, descriptionType: "Abstract" }));
  const published = first(dataset.datePublished);
  if (published) fields.published = published;
  const created = first(dataset.dateCreated);
  if (created && W3CDTF.test(created)) fields.dates.push({ date: created, dateType: "Created" });
  for (const written of strings(dataset.temporalCoverage)) {
    const date = coverageDate(written);
    if (date) fields.dates.push({ date, dateType: "Coverage" });
  }
  fields.geoLocations = list(dataset.spatialCoverage).flatMap(geoLocations);
  fields.rights = list(dataset.license).flatMap(rights);
  fields.fundingReferences = list(dataset.funding).flatMap(funding);
  const language = first(dataset.inLanguage);
  if (language) fields.language = language;
  return fields;
}

const W3CDTF = /^\d{4}(-\d{2}(-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?)?)?$/;

/** ISO 8601 "start/end" (".." or empty for an open end, as schema.org writes it) or a single date. */
function coverageDate(written: string): string | undefined {
  const [start = "", end, ...rest] = written.split("/").map((s) => s.trim());
  if (rest.length) return undefined;
  if (end === undefined) return W3CDTF.test(start) ? start : undefined;
  const open = (s: string) => s === "" || s === "..";
  if (!(open(start) || W3CDTF.test(start)) || !(open(end) || W3CDTF.test(end))) return undefined;
  if (open(start) && open(end)) return undefined;
  return `${open(start) ? "unknown" : start}/${open(end) ? "open" : end}`;
}

function party(node: Json): DataciteName | undefined {
  if (typeof node === "string") return { name: node.trim(), nameIdentifiers: [], affiliations: [] };
  if (!isObject(node)) return undefined;
  const organization = typesOf(node).some((t) => t === "Organization" || t === "FundingAgency");
  const given = strings(node.givenName).join(" ");
  const family = first(node.familyName);
  const name = family ? (given ? `${family}, ${given}` : family) : first(node.name);
  if (!name) return undefined;
  const orcid = identifiersOf(node).map(orcidOf).find(Boolean);
  return {
    name,
    nameType: organization ? "Organizational" : "Personal",
    ...(!organization && given ? { givenName: given } : {}),
    ...(!organization && family ? { familyName: family } : {}),
    nameIdentifiers: orcid ? [{ value: orcid, scheme: "ORCID", schemeURI: "https://orcid.org" }] : [],
    affiliations: organization ? [] : list(node.affiliation).flatMap(affiliation),
  };
}

function affiliation(node: Json): Affiliation[] {
  if (typeof node === "string") return node.trim() ? [{ name: node.trim() }] : [];
  if (!isObject(node)) return [];
  const name = first(node.name);
  if (!name) return [];
  const ror = identifiersOf(node).find((id) => /^https?:\/\/ror\.org\/\w+$/.test(id));
  return [
    { name, ...(ror ? { identifier: ror, identifierScheme: "ROR", schemeURI: "https://ror.org" } : {}) },
  ];
}

/** A keyword: a string (comma-separated, as schema.org allows) or a DefinedTerm in its DefinedTermSet. */
function subjects(keyword: Json): Subject[] {
  if (typeof keyword === "string")
    return keyword
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)
      .map((subject) => ({ subject }));
  if (!isObject(keyword)) return [];
  const subject = first(keyword.name);
  if (!subject) return [];
  const set = keyword.inDefinedTermSet;
  const scheme = isObject(set) ? first(set.name) : undefined;
  const schemeURI = isObject(set) ? (first(set.url) ?? first(set["@id"])) : first(set);
  const valueURI = first(keyword.url) ?? first(keyword["@id"]);
  const code = first(keyword.termCode);
  return [
    {
      subject,
      ...(scheme ? { scheme } : {}),
      ...(schemeURI && /^https?:/.test(schemeURI) ? { schemeURI } : {}),
      ...(valueURI && /^https?:/.test(valueURI) ? { valueURI } : {}),
      ...(code ? { classificationCode: code } : {}),
    },
  ];
}

/** "lat lon" pairs as schema.org's GeoShape writes them (space or comma separated). */
function points(written: string): Point[] {
  const n = written.trim().split(/[\s,]+/);
  const out: Point[] = [];
  for (let i = 0; i + 1 < n.length; i += 2) out.push({ latitude: n[i] ?? "", longitude: n[i + 1] ?? "" });
  return out;
}

function geoLocations(place: Json): GeoLocation[] {
  if (typeof place === "string") return place.trim() ? [{ place: place.trim(), polygons: [] }] : [];
  if (!isObject(place)) return [];
  const name = first(place.name) ?? first(place.description);
  const out: GeoLocation[] = [];
  for (const geo of list(place.geo)) {
    if (!isObject(geo)) continue;
    const location: GeoLocation = { ...(name ? { place: name } : {}), polygons: [] };
    // GeoShape.box: "two points separated by a space", the lower (south-west) corner first.
    const [low, high] = points(first(geo.box) ?? "");
    if (low && high)
      location.box = { west: low.longitude, east: high.longitude, south: low.latitude, north: high.latitude };
    for (const polygon of strings(geo.polygon)) location.polygons.push(points(polygon));
    if (geo.latitude !== undefined && geo.longitude !== undefined) {
      const latitude = first(geo.latitude);
      const longitude = first(geo.longitude);
      if (latitude && longitude) location.point = { latitude, longitude };
    }
    out.push(location);
  }
  if (!out.length && name) out.push({ place: name, polygons: [] });
  return out;
}

/** A licence: its URL or a CreativeWork; SPDX's URLs also give the SPDX identifier. */
function rights(license: Json): Rights[] {
  const uri = isObject(license) ? (first(license.url) ?? first(license["@id"])) : first(license);
  const name = isObject(license) ? first(license.name) : undefined;
  const isUri = !!uri && /^https?:\/\//.test(uri);
  const spdx = isUri
    ? /^https?:\/\/spdx\.org\/licenses\/([\w.+-]+?)(\.html|\.json)?$/.exec(uri ?? "")?.[1]
    : undefined;
  if (!name && !uri) return [];
  return [
    {
      ...(name ? { text: name } : !isUri && uri ? { text: uri } : {}),
      ...(isUri ? { uri } : {}),
      ...(spdx
        ? { identifier: spdx, identifierScheme: "SPDX", schemeURI: "https://spdx.org/licenses/" }
        : {}),
    },
  ];
}

/** A MonetaryGrant: its funder, its identifier (the award number), name (award title) and url. */
function funding(grant: Json) {
  if (!isObject(grant)) {
    const said = first(grant);
    return said ? [{ funderName: said }] : [];
  }
  const funder = list(grant.funder).find(isObject);
  // A funder may also be written as its name alone; without one, the grant's name is all there is.
  const funderName = (funder ? first(funder.name) : first(grant.funder)) ?? first(grant.name);
  if (!funderName) return [];
  const funderIdentifier = funder ? identifiersOf(funder).find((id) => /^https?:\/\//.test(id)) : undefined;
  const awardNumber = list(grant.identifier)
    .flatMap((id) => (isObject(id) ? strings(id.value) : strings(id)))
    .find((id) => !/^https?:\/\//.test(id));
  const awardURI = first(grant.url);
  const awardTitle = funderName !== first(grant.name) ? first(grant.name) : undefined;
  return [
    {
      funderName,
      ...(funderIdentifier ? { funderIdentifier, funderIdentifierType: funderType(funderIdentifier) } : {}),
      ...(awardNumber ? { awardNumber } : {}),
      ...(awardNumber && awardURI ? { awardURI } : {}),
      ...(awardTitle ? { awardTitle } : {}),
    },
  ];
}
