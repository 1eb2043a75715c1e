/**
 * Science-metadata extraction: the extractor for an object's format, or none (data objects and formats the
 * index does not read are searchable by their system metadata only). A document that fails to parse is indexed
 * by its system metadata alone, as the DataONE indexer does.
 */
import { InvalidRequest } from "../../errors/exceptions.ts";
import { parseXml } from "../../types/xml-parse.ts";
import type { SearchDocument } from "../schema/document.ts";
import { extractDublinCore } from "./dublin-core.ts";
import { extractEml } from "./eml.ts";
import { extractFgdc } from "./fgdc.ts";
import { extractIso } from "./iso.ts";
import { extractSchemaOrg } from "./schema-org.ts";

export type Extractor = (bytes: Buffer) => SearchDocument;

const xml =
  (read: (root: ReturnType<typeof parseXml>) => SearchDocument): Extractor =>
  (bytes) =>
    read(parseXml(bytes, InvalidRequest));

const EML = xml(extractEml);
const ISO = xml(extractIso);
const FGDC = xml(extractFgdc);
const DC = xml(extractDublinCore);

const BY_FORMAT: Record<string, Extractor> = {
  "eml://ecoinformatics.org/eml-2.0.0": EML,
  "eml://ecoinformatics.org/eml-2.0.1": EML,
  "eml://ecoinformatics.org/eml-2.1.0": EML,
  "eml://ecoinformatics.org/eml-2.1.1": EML,
  "https://eml.ecoinformatics.org/eml-2.2.0": EML,
  "http://www.isotc211.org/2005/gmd": ISO,
  "http://www.isotc211.org/2005/gmd-noaa": ISO,
  "http://www.isotc211.org/2005/gmd-pangaea": ISO,
  "FGDC-STD-001-1998": FGDC,
  "FGDC-STD-001.1-1999": FGDC,
  "FGDC-STD-001.2-1999": FGDC,
  "http://www.esri.com/metadata/esriprof80.dtd": FGDC,
  "http://ns.dataone.org/metadata/schema/onedcx/v1.0": DC,
  "http://www.openarchives.org/OAI/2.0/oai_dc/": DC,
  "http://purl.org/dc/terms/": DC,
  "science-on-schema.org/Dataset;ld+json": extractSchemaOrg,
};

/** Largest science-metadata document read for indexing (metadata documents are far smaller). */
export const MAX_METADATA_BYTES = 32 * 1024 * 1024;

export function extractorFor(formatId: string): Extractor | undefined {
  return BY_FORMAT[formatId];
}

/** Every format the index reads science metadata from (for the engine description and docs). */
export const INDEXED_FORMATS: readonly string[] = Object.keys(BY_FORMAT);
