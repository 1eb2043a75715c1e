/**
 * Reads DataCite kernel-4 XML into a `DataciteRecord`: the properties the record holds (relatedItems and other
 * properties the node does not write are not kept). Used to check records round-trip and to read what DataCite
 * holds for a DOI.
 */
import { InvalidRequest } from "../../errors/exceptions.ts";
import { parseXml, type XmlElement } from "../../types/xml-parse.ts";
import { children, path, text } from "../../views/xml-tree.ts";
import type { Affiliation, DataciteName, DataciteRecord, GeoLocation, Point } from "./record.ts";

const attr = (e: XmlElement, name: string): string | undefined => e.attributes.get(name);

/** Only the attributes present, so that a parsed record equals one built without them. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function nameOf(e: XmlElement, kind: "creator" | "contributor"): DataciteName {
  const name = children(e, `${kind}Name`)[0];
  const nameType = name ? attr(name, "nameType") : undefined;
  return defined({
    name: text(name),
    nameType: nameType === "Personal" || nameType === "Organizational" ? nameType : undefined,
    lang: name ? attr(name, "xml:lang") : undefined,
    givenName: children(e, "givenName").map(text)[0],
    familyName: children(e, "familyName").map(text)[0],
    nameIdentifiers: children(e, "nameIdentifier").map((n) =>
      defined({
        value: text(n),
        scheme: attr(n, "nameIdentifierScheme") ?? "",
        schemeURI: attr(n, "schemeURI"),
      }),
    ),
    affiliations: children(e, "affiliation").map(
      (a): Affiliation =>
        defined({
          name: text(a),
          identifier: attr(a, "affiliationIdentifier"),
          identifierScheme: attr(a, "affiliationIdentifierScheme"),
          schemeURI: attr(a, "schemeURI"),
        }),
    ),
  });
}

function pointOf(e: XmlElement | undefined): Point | undefined {
  if (!e) return undefined;
  return {
    latitude: text(children(e, "pointLatitude")[0]),
    longitude: text(children(e, "pointLongitude")[0]),
  };
}

function geoLocationOf(g: XmlElement): GeoLocation {
  const box = children(g, "geoLocationBox")[0];
  const place = children(g, "geoLocationPlace").map(text)[0];
  const point = pointOf(children(g, "geoLocationPoint")[0]);
  return defined({
    place,
    point,
    box: box && {
      west: text(children(box, "westBoundLongitude")[0]),
      east: text(children(box, "eastBoundLongitude")[0]),
      south: text(children(box, "southBoundLatitude")[0]),
      north: text(children(box, "northBoundLatitude")[0]),
    },
    polygons: children(g, "geoLocationPolygon").map((p) =>
      children(p, "polygonPoint").map((q) => pointOf(q) as Point),
    ),
  });
}

export function parseDatacite(xml: string | Buffer): DataciteRecord {
  const root = parseXml(xml, InvalidRequest);
  const one = (name: string) => children(root, name)[0];
  const publisher = one("publisher");
  const resourceType = one("resourceType");
  const version = one("version");
  const language = one("language");
  return defined({
    doi: text(one("identifier")),
    creators: path(root, "creators/creator").map((c) => nameOf(c, "creator")),
    titles: path(root, "titles/title").map((t) =>
      defined({ title: text(t), titleType: attr(t, "titleType"), lang: attr(t, "xml:lang") }),
    ),
    publisher: defined({
      name: text(publisher),
      identifier: publisher && attr(publisher, "publisherIdentifier"),
      identifierScheme: publisher && attr(publisher, "publisherIdentifierScheme"),
      schemeURI: publisher && attr(publisher, "schemeURI"),
      lang: publisher && attr(publisher, "xml:lang"),
    }),
    publicationYear: text(one("publicationYear")),
    resourceTypeGeneral: (resourceType && attr(resourceType, "resourceTypeGeneral")) ?? "",
    resourceType: text(resourceType) || undefined,
    subjects: path(root, "subjects/subject").map((s) =>
      defined({
        subject: text(s),
        scheme: attr(s, "subjectScheme"),
        schemeURI: attr(s, "schemeURI"),
        valueURI: attr(s, "valueURI"),
        classificationCode: attr(s, "classificationCode"),
        lang: attr(s, "xml:lang"),
      }),
    ),
    contributors: path(root, "contributors/contributor").map((c) => ({
      ...nameOf(c, "contributor"),
      contributorType: attr(c, "contributorType") ?? "Other",
    })),
    dates: path(root, "dates/date").map((d) =>
      defined({
        date: text(d),
        dateType: attr(d, "dateType") ?? "Other",
        dateInformation: attr(d, "dateInformation"),
      }),
    ),
    language: language ? text(language) : undefined,
    alternateIdentifiers: path(root, "alternateIdentifiers/alternateIdentifier").map((a) => ({
      value: text(a),
      type: attr(a, "alternateIdentifierType") ?? "",
    })),
    relatedIdentifiers: path(root, "relatedIdentifiers/relatedIdentifier").map((r) =>
      defined({
        value: text(r),
        type: attr(r, "relatedIdentifierType") ?? "",
        relationType: attr(r, "relationType") ?? "",
        resourceTypeGeneral: attr(r, "resourceTypeGeneral"),
      }),
    ),
    sizes: path(root, "sizes/size").map(text),
    formats: path(root, "formats/format").map(text),
    version: version ? text(version) : undefined,
    rights: path(root, "rightsList/rights").map((r) =>
      defined({
        text: text(r) || undefined,
        uri: attr(r, "rightsURI"),
        identifier: attr(r, "rightsIdentifier"),
        identifierScheme: attr(r, "rightsIdentifierScheme"),
        schemeURI: attr(r, "schemeURI"),
        lang: attr(r, "xml:lang"),
      }),
    ),
    descriptions: path(root, "descriptions/description").map((d) =>
      defined({
        text: text(d),
        descriptionType: attr(d, "descriptionType") ?? "Other",
        lang: attr(d, "xml:lang"),
      }),
    ),
    geoLocations: path(root, "geoLocations/geoLocation").map(geoLocationOf),
    fundingReferences: path(root, "fundingReferences/fundingReference").map((f) => {
      const id = children(f, "funderIdentifier")[0];
      const award = children(f, "awardNumber")[0];
      return defined({
        funderName: text(children(f, "funderName")[0]),
        funderIdentifier: id ? text(id) : undefined,
        funderIdentifierType: id && attr(id, "funderIdentifierType"),
        awardNumber: award ? text(award) : undefined,
        awardURI: award && attr(award, "awardURI"),
        awardTitle: children(f, "awardTitle").map(text)[0],
      });
    }),
  });
}
