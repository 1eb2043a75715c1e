/**
 * A `DataciteRecord` as DataCite Metadata Schema 4.6 XML (namespace http://datacite.org/schema/kernel-4).
 * Values the XSD would refuse are left out here rather than sent (a coordinate out of range, a polygon of fewer
 * than four points, a language tag that is not one), so that every record emitted validates.
 */
import { escapeAttr, escapeText, XML_DECLARATION } from "../../types/xml.ts";
import type {
  Affiliation,
  Box,
  DataciteName,
  DataciteRecord,
  GeoLocation,
  NameIdentifier,
  Point,
} from "./record.ts";
import { UNAVAILABLE } from "./record.ts";

export const DATACITE_NAMESPACE = "http://datacite.org/schema/kernel-4";
export const DATACITE_SCHEMA_LOCATION = "http://schema.datacite.org/meta/kernel-4.6/metadata.xsd";

type Attrs = Record<string, string | undefined>;

function attrs(values: Attrs): string {
  return Object.entries(values)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== "")
    .map(([name, value]) => ` ${name}="${escapeAttr(value)}"`)
    .join("");
}

function element(name: string, text: string, values: Attrs = {}): string {
  return `<${name}${attrs(values)}>${escapeText(text)}</${name}>`;
}

/** A wrapper with its items, or nothing when there are none. */
function wrapper(name: string, items: string[]): string {
  return items.length ? `<${name}>${items.join("")}</${name}>` : "";
}

const nonEmpty = (value: string | undefined): value is string => value !== undefined && value.trim() !== "";

function nameParts(kind: "creator" | "contributor", person: DataciteName): string {
  return [
    element(`${kind}Name`, nonEmpty(person.name) ? person.name : UNAVAILABLE, {
      nameType: person.nameType,
      "xml:lang": person.lang,
    }),
    nonEmpty(person.givenName) ? element("givenName", person.givenName) : "",
    nonEmpty(person.familyName) ? element("familyName", person.familyName) : "",
    ...person.nameIdentifiers.filter((n) => nonEmpty(n.value) && nonEmpty(n.scheme)).map(nameIdentifier),
    ...person.affiliations.filter((a) => nonEmpty(a.name)).map(affiliation),
  ].join("");
}

const nameIdentifier = (n: NameIdentifier) =>
  element("nameIdentifier", n.value, { nameIdentifierScheme: n.scheme, schemeURI: n.schemeURI });

const affiliation = (a: Affiliation) =>
  element("affiliation", a.name, {
    affiliationIdentifier: a.identifier,
    affiliationIdentifierScheme: a.identifierScheme,
    schemeURI: a.schemeURI,
  });

function inRange(value: string, limit: number): boolean {
  if (!/^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/.test(value)) return false;
  const n = Number(value);
  return n >= -limit && n <= limit;
}

const validPoint = (p: Point) => inRange(p.latitude, 90) && inRange(p.longitude, 180);
const validBox = (b: Box) =>
  inRange(b.west, 180) && inRange(b.east, 180) && inRange(b.south, 90) && inRange(b.north, 90);

function point(name: string, p: Point): string {
  return `<${name}>${element("pointLongitude", p.longitude.trim())}${element("pointLatitude", p.latitude.trim())}</${name}>`;
}

function geoLocation(g: GeoLocation): string {
  const parts: string[] = [];
  if (nonEmpty(g.place)) parts.push(element("geoLocationPlace", g.place));
  if (g.point && validPoint(g.point)) parts.push(point("geoLocationPoint", g.point));
  if (g.box && validBox(g.box)) {
    const b = g.box;
    parts.push(
      `<geoLocationBox>${element("westBoundLongitude", b.west.trim())}${element("eastBoundLongitude", b.east.trim())}` +
        `${element("southBoundLatitude", b.south.trim())}${element("northBoundLatitude", b.north.trim())}</geoLocationBox>`,
    );
  }
  for (const polygon of g.polygons) {
    if (polygon.length >= 4 && polygon.every(validPoint)) {
      parts.push(
        `<geoLocationPolygon>${polygon.map((p) => point("polygonPoint", p)).join("")}</geoLocationPolygon>`,
      );
    }
  }
  return parts.length ? `<geoLocation>${parts.join("")}</geoLocation>` : "";
}

/** BCP 47 as xs:language accepts it. */
const LANGUAGE = /^[a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*$/;

export function emitDatacite(record: DataciteRecord): string {
  const creators = record.creators.length ? record.creators : [unavailableCreator()];
  const titles = record.titles.filter((t) => nonEmpty(t.title));
  const year = /^\d{4}$/.test(record.publicationYear)
    ? record.publicationYear
    : String(new Date().getUTCFullYear());
  const body = [
    element("identifier", record.doi, { identifierType: "DOI" }),
    wrapper(
      "creators",
      creators.map((c) => `<creator>${nameParts("creator", c)}</creator>`),
    ),
    wrapper(
      "titles",
      (titles.length ? titles : [{ title: UNAVAILABLE }]).map((t) =>
        element("title", t.title, { titleType: t.titleType, "xml:lang": t.lang }),
      ),
    ),
    element("publisher", nonEmpty(record.publisher.name) ? record.publisher.name : UNAVAILABLE, {
      "xml:lang": record.publisher.lang,
      publisherIdentifier: record.publisher.identifier,
      publisherIdentifierScheme: record.publisher.identifierScheme,
      schemeURI: record.publisher.schemeURI,
    }),
    element("publicationYear", year),
    element("resourceType", record.resourceType ?? "", { resourceTypeGeneral: record.resourceTypeGeneral }),
    wrapper(
      "subjects",
      record.subjects
        .filter((s) => nonEmpty(s.subject))
        .map((s) =>
          element("subject", s.subject, {
            "xml:lang": s.lang,
            subjectScheme: s.scheme,
            schemeURI: s.schemeURI,
            valueURI: s.valueURI,
            classificationCode: s.classificationCode,
          }),
        ),
    ),
    wrapper(
      "contributors",
      record.contributors.map(
        (c) =>
          `<contributor${attrs({ contributorType: c.contributorType })}>${nameParts("contributor", c)}</contributor>`,
      ),
    ),
    wrapper(
      "dates",
      record.dates
        .filter((d) => nonEmpty(d.date))
        .map((d) => element("date", d.date, { dateType: d.dateType, dateInformation: d.dateInformation })),
    ),
    record.language && LANGUAGE.test(record.language) ? element("language", record.language) : "",
    wrapper(
      "alternateIdentifiers",
      record.alternateIdentifiers
        .filter((a) => nonEmpty(a.value))
        .map((a) => element("alternateIdentifier", a.value, { alternateIdentifierType: a.type })),
    ),
    wrapper(
      "relatedIdentifiers",
      record.relatedIdentifiers
        .filter((r) => nonEmpty(r.value))
        .map((r) =>
          element("relatedIdentifier", r.value, {
            relatedIdentifierType: r.type,
            relationType: r.relationType,
            resourceTypeGeneral: r.resourceTypeGeneral,
          }),
        ),
    ),
    wrapper(
      "sizes",
      record.sizes.filter(nonEmpty).map((s) => element("size", s)),
    ),
    wrapper(
      "formats",
      record.formats.filter(nonEmpty).map((f) => element("format", f)),
    ),
    nonEmpty(record.version) ? element("version", record.version) : "",
    wrapper(
      "rightsList",
      record.rights.map((r) =>
        element("rights", r.text ?? "", {
          "xml:lang": r.lang,
          schemeURI: r.schemeURI,
          rightsIdentifierScheme: r.identifierScheme,
          rightsIdentifier: r.identifier,
          rightsURI: r.uri,
        }),
      ),
    ),
    wrapper(
      "descriptions",
      record.descriptions
        .filter((d) => nonEmpty(d.text))
        .map((d) =>
          element("description", d.text, { "xml:lang": d.lang, descriptionType: d.descriptionType }),
        ),
    ),
    wrapper("geoLocations", record.geoLocations.map(geoLocation).filter(Boolean)),
    wrapper(
      "fundingReferences",
      record.fundingReferences
        .filter((f) => nonEmpty(f.funderName))
        .map(
          (f) =>
            `<fundingReference>${element("funderName", f.funderName)}` +
            (nonEmpty(f.funderIdentifier)
              ? element("funderIdentifier", f.funderIdentifier, {
                  funderIdentifierType: f.funderIdentifierType ?? "Other",
                })
              : "") +
            (nonEmpty(f.awardNumber) ? element("awardNumber", f.awardNumber, { awardURI: f.awardURI }) : "") +
            (nonEmpty(f.awardTitle) ? element("awardTitle", f.awardTitle) : "") +
            "</fundingReference>",
        ),
    ),
  ].join("");
  return (
    `${XML_DECLARATION}\n<resource xmlns="${DATACITE_NAMESPACE}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ` +
    `xsi:schemaLocation="${DATACITE_NAMESPACE} ${DATACITE_SCHEMA_LOCATION}">${body}</resource>\n`
  );
}

function unavailableCreator(): DataciteName {
  return { name: UNAVAILABLE, nameIdentifiers: [], affiliations: [] };
}
