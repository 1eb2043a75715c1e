/**
 * Picks the extractor for a metadata document: by formatId first (the DataONE format list names the standard),
 * then by the root element, falling back to the generic reader for any other well-formed XML; schema.org JSON-LD
 * (science-on-schema.org) by its format or its first character.
 */
import { InvalidRequest } from "../../errors/exceptions.ts";
import { isJsonLd, readDataset } from "../../types/json-ld.ts";
import { parseXml, type XmlElement } from "../../types/xml-parse.ts";
import { emptyModel, type MetadataModel } from "../model.ts";
import { localName } from "../xml-tree.ts";
import { extractDublinCore } from "./dublin-core.ts";
import { extractEml } from "./eml.ts";
import { extractFgdc } from "./fgdc.ts";
import { extractGeneric } from "./generic.ts";
import { extractIso19139 } from "./iso19139.ts";
import { extractSchemaOrg } from "./schema-org.ts";

type Extractor = (root: XmlElement, standard: string) => MetadataModel;

function extractorFor(formatId: string, root: XmlElement): Extractor {
  const name = localName(root);
  if (/eml/i.test(formatId) || name === "eml") return extractEml;
  if (/isotc211|iso19139|19115/i.test(formatId) || name === "MD_Metadata" || name === "MI_Metadata")
    return extractIso19139;
  if (/fgdc/i.test(formatId) || (name === "metadata" && root.children.some((c) => localName(c) === "idinfo")))
    return extractFgdc;
  if (
    /purl\.org\/dc|onedcx|dublin/i.test(formatId) ||
    ["dc", "qualifieddc", "simpledc", "dcx"].includes(name)
  )
    return extractDublinCore;
  return extractGeneric;
}

/** The view model of a metadata document; a document that is not XML (or JSON-LD) still gets a page saying so. */
export function extractMetadata(bytes: Buffer, formatId: string, standard: string): MetadataModel {
  if (isJsonLd(bytes, formatId)) {
    const dataset = readDataset(bytes);
    if (dataset) return extractSchemaOrg(dataset, standard);
    const model = emptyModel("schema-org", standard);
    model.fields.push({ path: "(document)", value: "This document holds no schema.org Dataset in JSON-LD." });
    return model;
  }
  let root: XmlElement;
  try {
    root = parseXml(bytes, InvalidRequest);
  } catch (error) {
    const model = emptyModel("xml", standard);
    model.fields.push({
      path: "(document)",
      value: `This document could not be read as XML: ${(error as Error).message}`,
    });
    return model;
  }
  return extractorFor(formatId, root)(root, standard);
}
