/**
 * EML 2.x to DataCite properties: creators (ORCID from userId, affiliation from organizationName), title,
 * pubDate, keywords (keywordThesaurus as subjectScheme), abstract and methods, temporal and geographic coverage,
 * contact and associated parties, licence (EML 2.2 `licensed`, else `intellectualRights`), and funding (EML 2.2
 * `project/award`, else `project/funding`).
 */
import type { XmlElement } from "../../types/xml-parse.ts";
import { children, firstText, paragraphs, path, text, texts } from "../../views/xml-tree.ts";
import type { Contributor, DataciteName, DescribedFields } from "./fields.ts";
import { funderType, orcidOf } from "./names.ts";

/** EML roles (associatedParty/role, personnel/role) that have a DataCite contributorType of their own. */
const CONTRIBUTOR_TYPES: Record<string, string> = {
  principalinvestigator: "ProjectLeader",
  custodiansteward: "DataCurator",
  datamanager: "DataManager",
  distributor: "Distributor",
  editor: "Editor",
  producer: "Producer",
  rightsholder: "RightsHolder",
  sponsor: "Sponsor",
  researcher: "Researcher",
  fieldtechnician: "DataCollector",
};

export function fieldsFromEml(root: XmlElement): DescribedFields {
  const dataset = children(root, "dataset")[0];
  const fields: DescribedFields = {
    titles: texts(dataset, "title").map((title, i) =>
      i === 0 ? { title } : { title, titleType: "AlternativeTitle" },
    ),
    creators: path(dataset, "creator").map(party),
    contributors: [
      ...path(dataset, "contact").map((c) => ({ ...party(c), contributorType: "ContactPerson" })),
      ...path(dataset, "associatedParty").map(roleParty),
      ...path(dataset, "project/personnel").map(roleParty),
    ],
    subjects: path(dataset, "keywordSet").flatMap((set) => {
      const scheme = firstText(set, "keywordThesaurus");
      return texts(set, "keyword").map((subject) => ({ subject, ...(scheme ? { scheme } : {}) }));
    }),
    descriptions: [
      ...paragraphs(children(dataset, "abstract")[0]).map((t) => ({ text: t, descriptionType: "Abstract" })),
      ...path(dataset, "methods/methodStep")
        .flatMap((step) => paragraphs(children(step, "description")[0]))
        .map((t) => ({ text: t, descriptionType: "Methods" })),
    ],
    dates: [],
    geoLocations: [],
    fundingReferences: [],
    rights: [],
  };
  const published = firstText(dataset, "pubDate") ?? firstText(root, "pubDate");
  if (published) fields.published = published;
  const language = firstText(dataset, "language");
  if (language) fields.language = language;
  const coverage = children(dataset, "coverage")[0];
  for (const t of path(coverage, "temporalCoverage")) {
    for (const single of texts(t, "singleDateTime/calendarDate"))
      fields.dates.push({ date: single, dateType: "Coverage" });
    const begin = firstText(t, "rangeOfDates/beginDate/calendarDate");
    const end = firstText(t, "rangeOfDates/endDate/calendarDate");
    if (begin || end)
      fields.dates.push({ date: `${begin ?? "unknown"}/${end ?? "open"}`, dateType: "Coverage" });
  }
  for (const g of path(coverage, "geographicCoverage")) {
    const place = firstText(g, "geographicDescription");
    const box = children(g, "boundingCoordinates")[0];
    const edge = (name: string) => firstText(box, name) ?? "";
    const bounds = box && {
      west: edge("westBoundingCoordinate"),
      east: edge("eastBoundingCoordinate"),
      south: edge("southBoundingCoordinate"),
      north: edge("northBoundingCoordinate"),
    };
    const isPoint = bounds && bounds.west === bounds.east && bounds.north === bounds.south;
    fields.geoLocations.push({
      ...(place ? { place } : {}),
      ...(bounds && isPoint ? { point: { latitude: bounds.north, longitude: bounds.west } } : {}),
      ...(bounds && !isPoint ? { box: bounds } : {}),
      polygons: [],
    });
  }
  for (const licence of path(dataset, "licensed")) {
    const name = firstText(licence, "licenseName");
    const uri = firstText(licence, "url");
    const identifier = firstText(licence, "identifier");
    fields.rights.push({
      ...(name ? { text: name } : {}),
      ...(uri ? { uri } : {}),
      ...(identifier
        ? { identifier, identifierScheme: "SPDX", schemeURI: "https://spdx.org/licenses/" }
        : {}),
    });
  }
  if (fields.rights.length === 0) {
    const rights = paragraphs(children(dataset, "intellectualRights")[0]).join(" ");
    if (rights) fields.rights.push({ text: rights });
  }
  for (const award of path(dataset, "project/award")) {
    const funderName = firstText(award, "funderName");
    if (!funderName) continue;
    const funderIdentifier = firstText(award, "funderIdentifier");
    const awardNumber = firstText(award, "awardNumber");
    const awardURI = firstText(award, "awardUrl");
    const awardTitle = firstText(award, "title");
    fields.fundingReferences.push({
      funderName,
      ...(funderIdentifier ? { funderIdentifier, funderIdentifierType: funderType(funderIdentifier) } : {}),
      ...(awardNumber ? { awardNumber } : {}),
      ...(awardNumber && awardURI ? { awardURI } : {}),
      ...(awardTitle ? { awardTitle } : {}),
    });
  }
  if (fields.fundingReferences.length === 0) {
    for (const funding of path(dataset, "project/funding")) {
      const said = paragraphs(funding).join(" ");
      if (said) fields.fundingReferences.push({ funderName: said });
    }
  }
  return fields;
}

/** An EML party (creator, contact, associatedParty, personnel). */
function party(e: XmlElement): DataciteName {
  const person = children(e, "individualName")[0];
  const organization = firstText(e, "organizationName");
  const orcid = path(e, "userId").map(text).map(orcidOf).find(Boolean);
  const nameIdentifiers = orcid ? [{ value: orcid, scheme: "ORCID", schemeURI: "https://orcid.org" }] : [];
  if (person) {
    const given = texts(person, "givenName").join(" ");
    const family = firstText(person, "surName") ?? "";
    return {
      name: given ? `${family}, ${given}` : family,
      nameType: "Personal",
      ...(given ? { givenName: given } : {}),
      ...(family ? { familyName: family } : {}),
      nameIdentifiers,
      affiliations: organization ? [{ name: organization }] : [],
    };
  }
  if (organization)
    return { name: organization, nameType: "Organizational", nameIdentifiers, affiliations: [] };
  return { name: firstText(e, "positionName") ?? text(e), nameIdentifiers, affiliations: [] };
}

function roleParty(e: XmlElement): Contributor {
  const role = (firstText(e, "role") ?? "").replace(/[\s_-]/g, "").toLowerCase();
  return { ...party(e), contributorType: CONTRIBUTOR_TYPES[role] ?? "Other" };
}
