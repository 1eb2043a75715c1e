/**
 * The index's fields, named and typed as in DataONE's Solr schema (dataone-indexer solr-conf/schema.xml).
 * string: exact, case-sensitive values; text: lower-cased word tokens (queries and facets see tokens, as Solr's
 * text_general does) with the whole value stored for display; numbers and dates compare numerically.
 */
export type FieldType = "string" | "text" | "int" | "long" | "float" | "date" | "boolean";

export interface FieldSpec {
  name: string;
  type: FieldType;
  multiValued: boolean;
  /** Stored: returned in documents (the *Text copies are searchable only, as in the Solr schema). */
  stored: boolean;
}

const S = "string";
const T = "text";
type Row = [name: string, type: FieldType, multi?: boolean, stored?: boolean];

const ROWS: Row[] = [
  // System metadata
  ["id", S],
  ["seriesId", S],
  ["fileName", S],
  ["mediaType", S],
  ["mediaTypeProperty", S, true],
  ["formatId", S],
  ["formatType", S],
  ["size", "long"],
  ["checksum", S],
  ["checksumAlgorithm", S],
  ["archived", "boolean"],
  ["dateUploaded", "date"],
  ["dateModified", "date"],
  ["updateDate", "date"],
  ["submitter", S],
  ["rightsHolder", S],
  ["authoritativeMN", S],
  ["replicationAllowed", "boolean"],
  ["numberReplicas", "int"],
  ["preferredReplicationMN", S, true],
  ["blockedReplicationMN", S, true],
  ["replicaMN", S, true],
  ["replicationStatus", S, true],
  ["replicaVerifiedDate", "date", true],
  ["datasource", S],
  ["obsoletes", S],
  ["obsoletedBy", S],
  ["identifier", T],
  // Access
  ["readPermission", S, true],
  ["writePermission", S, true],
  ["changePermission", S, true],
  ["isPublic", "boolean"],
  // Packages (OAI-ORE)
  ["resourceMap", S, true],
  ["documents", S, true],
  ["isDocumentedBy", S, true],
  // Science metadata
  ["author", S],
  ["authorSurName", S],
  ["authorGivenName", S],
  ["authorSurNameSort", S],
  ["authorGivenNameSort", S],
  ["authorLastName", S, true],
  ["abstract", T],
  ["keywords", S, true],
  ["keywordsText", T, true, false],
  ["southBoundCoord", "float"],
  ["northBoundCoord", "float"],
  ["westBoundCoord", "float"],
  ["eastBoundCoord", "float"],
  ["namedLocation", S, true],
  ["beginDate", "date"],
  ["endDate", "date"],
  ["pubDate", "date"],
  ["datePublished", "date"],
  ["title", T],
  ["titlestr", S, false, false],
  ["scientificName", S, true],
  ["investigator", S, true],
  ["investigatorText", T, true, false],
  ["origin", S, true],
  ["originText", T, true, false],
  ["originator", S, true],
  ["originatorText", T, true, false],
  ["purpose", T],
  ["edition", T],
  ["geoform", S],
  ["presentationCat", S],
  ["LTERSite", S],
  ["placeKey", T, true],
  ["kingdom", S, true],
  ["phylum", S, true],
  ["class", S, true],
  ["order", S, true],
  ["family", S, true],
  ["genus", S, true],
  ["species", S, true],
  ["attributeName", S, true],
  ["attributeLabel", S, true],
  ["attributeDescription", T, true],
  ["attributeUnit", S, true],
  ["attribute", T, true],
  ["contactOrganization", S, true],
  ["contactOrganizationText", T, true, false],
  ["relatedOrganizations", S, true],
  ["gcmdKeyword", T, true],
  ["project", S, true],
  ["projectText", T, true, false],
  ["funding", S, true],
  ["fundingText", T, true, false],
  ["funderName", S, true],
  ["funderIdentifier", S, true],
  ["awardNumber", S, true],
  ["awardTitle", S, true],
  ["licenseName", S, true],
  ["licenseUrl", S, true],
  ["site", S, true],
  ["siteText", T, true, false],
  ["parameter", S, true],
  ["parameterText", T, true, false],
  ["sensor", S, true],
  ["source", S, true],
  ["term", S, true],
  ["topic", S, true],
  ["isSpatial", S],
  ["noBoundingBox", S],
  ["decade", S],
  ["webUrl", S, true],
  ["dataUrl", S],
  ["isService", "boolean"],
  ["serviceTitle", T],
  ["serviceDescription", T],
  ["serviceType", S, true],
  ["serviceEndpoint", S, true],
  ["label", S],
  ["logo", S],
  ["sem_annotation", S, true],
  ["text", T],
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((n): Row => [`geohash_${n}`, T, true]),
];

export const FIELDS: ReadonlyMap<string, FieldSpec> = new Map(
  ROWS.map(([name, type, multi = false, stored = true]) => [
    name,
    { name, type, multiValued: multi, stored },
  ]),
);

/** Dynamic fields of the schema (`*_i`, `*_s`, ...): a name ending so has that type. */
const DYNAMIC: [suffix: string, type: FieldType, multi: boolean][] = [
  ["_sm", S, true],
  ["_ss", S, true],
  ["_s", S, false],
  ["_im", "int", true],
  ["_is", "int", true],
  ["_i", "int", false],
  ["_l", "long", false],
  ["_tm", T, true],
  ["_txt", T, true],
  ["_t", T, false],
  ["_b", "boolean", false],
  ["_f", "float", false],
  ["_d", "float", false],
  ["_dt", "date", false],
];

/** The field's definition, or undefined when the schema has no such field (Solr: "undefined field"). */
export function fieldSpec(name: string): FieldSpec | undefined {
  const fixed = FIELDS.get(name);
  if (fixed) return fixed;
  for (const [suffix, type, multiValued] of DYNAMIC) {
    if (name.length > suffix.length && name.endsWith(suffix))
      return { name, type, multiValued, stored: true };
  }
  return undefined;
}

/** Copy fields of the schema: the target gets the source's values too. */
export const COPY_FIELDS: readonly [source: string, target: string][] = [
  ["id", "identifier"],
  ["title", "titlestr"],
  ["origin", "originText"],
  ["origin", "originatorText"],
  ["project", "projectText"],
  ["funding", "fundingText"],
  ["site", "siteText"],
  ["parameter", "parameterText"],
  ["investigator", "investigatorText"],
  ["keywords", "keywordsText"],
  ["pubDate", "datePublished"],
  ["dateUploaded", "updateDate"],
  ["contactOrganization", "contactOrganizationText"],
];

export const isNumeric = (type: FieldType) =>
  type === "int" || type === "long" || type === "float" || type === "date";
