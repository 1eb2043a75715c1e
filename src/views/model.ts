/**
 * What a view shows, whatever the document's standard: the same model is rendered by every theme, so a new
 * metadata standard only needs an extractor and a new theme only needs a renderer.
 */
import type { SystemMetadata } from "../types/sysmeta.ts";

export type DocumentKind =
  | "eml"
  | "iso19139"
  | "fgdc"
  | "dublin-core"
  | "schema-org"
  | "xml"
  | "data"
  | "resource-map";

export interface Coverage {
  temporal: string[];
  /** Bounding boxes in decimal degrees, and place names. */
  boxes: { west: string; east: string; north: string; south: string; description?: string }[];
  places: string[];
}

export interface DataEntity {
  name: string;
  /** What the document calls it: EML's element (dataTable, otherEntity, spatialRaster, ...), when it says. */
  kind?: string;
  description?: string;
  /** An identifier the document gives the entity (EML's id attribute), maybe a pid held by the node. */
  id?: string;
  /** Where the document says the bytes are. */
  url?: string;
}

export interface MetadataModel {
  kind: DocumentKind;
  /** The standard's name as shown to people ("Ecological Metadata Language 2.1.1"). */
  standard: string;
  title?: string;
  /** When the document says the data were published (EML pubDate, ISO publication date, FGDC pubdate), as written. */
  published?: string;
  creators: string[];
  abstract: string[];
  keywords: string[];
  coverage: Coverage;
  methods: string[];
  entities: DataEntity[];
  /** What machines read (src/landing/): people with their ORCIDs, short name, license, variables. */
  details?: MetadataDetails;
  /** For documents no extractor understands: their leaf elements as (path, text). */
  fields: { path: string; value: string }[];
}

/** What an extractor knows beyond what a page shows (EML today), for the structured data of a landing page. */
export interface MetadataDetails {
  /** The creators in document order; `orcid` is the bare 0000-0000-0000-0000 form. */
  creators: { name: string; kind: "person" | "organization"; orcid?: string }[];
  shortName?: string;
  license?: { name?: string; url?: string; text?: string };
  publisher?: string;
  /** The variables the data entities measure (EML attributes). */
  variables: { name: string; description?: string; unit?: string }[];
}

/** A package the object belongs to, with its members. */
export interface PackageSummary {
  id: string;
  members: {
    id: string;
    formatId?: string;
    size?: number;
    fileName?: string;
    mediaType?: string;
    checksum?: { algorithm: string; value: string };
  }[];
}

/** Everything a theme renders for one object. */
export interface ViewModel {
  sysmeta: SystemMetadata;
  metadata: MetadataModel;
  packages: PackageSummary[];
  /** The repository holding the object, by name: the publisher in its DOI's citation. */
  repository?: string;
  /** Usage so far (COUNTER unique investigations and requests; a dataset's over what it documents). */
  usage?: UsageSummary;
}

export interface UsageSummary {
  views: number;
  downloads: number;
}

/** The URLs a rendered page links to: the node serving the view decides them (an MN and a CN differ). */
export interface ViewLinks {
  object(pid: string): string;
  view(pid: string): string;
  package(pid: string): string;
}

export function emptyModel(kind: DocumentKind, standard: string): MetadataModel {
  return {
    kind,
    standard,
    creators: [],
    abstract: [],
    keywords: [],
    coverage: { temporal: [], boxes: [], places: [] },
    methods: [],
    entities: [],
    fields: [],
  };
}
