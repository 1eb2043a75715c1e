/**
 * A DataCite Metadata Schema 4.6 record as plain values: the properties this node writes (and reads back from
 * DataCite's own records). `emitDatacite` writes it as kernel-4 XML; `parseDatacite` reads such XML back.
 */

export interface NameIdentifier {
  value: string;
  scheme: string;
  schemeURI?: string;
}

export interface Affiliation {
  name: string;
  identifier?: string;
  identifierScheme?: string;
  schemeURI?: string;
}

/** A creator or contributor: "Family, Given" for a person, with the parts when known. */
export interface DataciteName {
  name: string;
  nameType?: "Personal" | "Organizational";
  lang?: string;
  givenName?: string;
  familyName?: string;
  nameIdentifiers: NameIdentifier[];
  affiliations: Affiliation[];
}

export interface Contributor extends DataciteName {
  /** contributorType, one of DataCite's controlled list (ContactPerson, DataCurator, Other, ...). */
  contributorType: string;
}

export interface Title {
  title: string;
  titleType?: string;
  lang?: string;
}

export interface Publisher {
  name: string;
  identifier?: string;
  identifierScheme?: string;
  schemeURI?: string;
  lang?: string;
}

export interface Subject {
  subject: string;
  scheme?: string;
  schemeURI?: string;
  valueURI?: string;
  classificationCode?: string;
  lang?: string;
}

export interface DataciteDate {
  /** W3CDTF, or an RKMS-ISO8601 range "start/end". */
  date: string;
  dateType: string;
  dateInformation?: string;
}

export interface RelatedIdentifier {
  value: string;
  /** relatedIdentifierType: DOI, URL, Handle, ... */
  type: string;
  relationType: string;
  resourceTypeGeneral?: string;
}

export interface Rights {
  text?: string;
  uri?: string;
  identifier?: string;
  identifierScheme?: string;
  schemeURI?: string;
  lang?: string;
}

export interface Description {
  text: string;
  descriptionType: string;
  lang?: string;
}

export interface Point {
  latitude: string;
  longitude: string;
}

export interface Box {
  west: string;
  east: string;
  south: string;
  north: string;
}

export interface GeoLocation {
  place?: string;
  point?: Point;
  box?: Box;
  /** Each of at least four points, the last equal to the first. */
  polygons: Point[][];
}

export interface FundingReference {
  funderName: string;
  funderIdentifier?: string;
  funderIdentifierType?: string;
  awardNumber?: string;
  awardURI?: string;
  awardTitle?: string;
}

export interface DataciteRecord {
  /** The DOI without "doi:" or a resolver (10.prefix/suffix). */
  doi: string;
  creators: DataciteName[];
  titles: Title[];
  publisher: Publisher;
  /** YYYY */
  publicationYear: string;
  resourceTypeGeneral: string;
  resourceType?: string;
  subjects: Subject[];
  contributors: Contributor[];
  dates: DataciteDate[];
  language?: string;
  alternateIdentifiers: { value: string; type: string }[];
  relatedIdentifiers: RelatedIdentifier[];
  sizes: string[];
  formats: string[];
  version?: string;
  rights: Rights[];
  descriptions: Description[];
  geoLocations: GeoLocation[];
  fundingReferences: FundingReference[];
}

/** What DataCite asks for when a mandatory value is unknown ("standard values for unknown information"). */
export const UNAVAILABLE = ":unav";
