/**
 * ObjectFormat and ObjectFormatList. v1 ObjectFormat is "formatId, formatName, formatType"; v2.0 appends
 * "mediaType minOccurs=0, extension minOccurs=0". ObjectFormatList extends Slice with "objectFormat minOccurs=1".
 */
import { InvalidRequest } from "../../errors/exceptions.ts";
import type { MediaType } from "../sysmeta.ts";
import {
  document,
  type ErrorClass,
  el,
  NS_V1,
  NS_V2,
  namespaceOf,
  optEl,
  parseXml,
  type XmlElement,
} from "../xml.ts";
import { expectRoot, nonEmpty, optionalText, parseEnum, Reader, requiredText } from "../xml-read.ts";
import { readSlice } from "./lists-xml.ts";
import { mediaTypeElement, readMediaType } from "./sysmeta-xml.ts";

export type FormatType = "DATA" | "METADATA" | "RESOURCE";
/** formatType: "the type of object: DATA, METADATA or a resource map (RESOURCE)". */
export const FORMAT_TYPES: readonly FormatType[] = ["DATA", "METADATA", "RESOURCE"];

export interface ObjectFormat {
  formatId: string;
  formatName: string;
  formatType: FormatType;
  /** v2.0 only */
  mediaType?: MediaType;
  /** v2.0 only: the usual file name extension, without the dot. */
  extension?: string;
}

function formatContent(f: ObjectFormat, version: "v1" | "v2"): string {
  let out = el("formatId", f.formatId) + el("formatName", f.formatName) + el("formatType", f.formatType);
  if (version === "v2")
    out += (f.mediaType ? mediaTypeElement(f.mediaType) : "") + optEl("extension", f.extension);
  return out;
}

export function serializeObjectFormat(format: ObjectFormat, version: "v1" | "v2"): string {
  return document(namespaceOf(version), "objectFormat", "", formatContent(format, version));
}

/** The whole list as one slice (start 0, total = count); an empty list is written but is not schema-valid. */
export function serializeObjectFormatList(formats: readonly ObjectFormat[], version: "v1" | "v2"): string {
  let content = "";
  for (const f of formats) content += `<objectFormat>${formatContent(f, version)}</objectFormat>`;
  const n = formats.length;
  return document(namespaceOf(version), "objectFormatList", ` count="${n}" start="0" total="${n}"`, content);
}

export function parseObjectFormat(xml: string | Buffer, fail: ErrorClass = InvalidRequest): ObjectFormat {
  const root = parseXml(xml, fail);
  expectRoot(root, "objectFormat", [NS_V1, NS_V2], fail);
  return readFormat(root, "objectFormat", root.namespace === NS_V2, fail);
}

/** Read a v1 or v2.0 objectFormatList (e.g. the shipped DataONE format list). */
export function parseObjectFormatList(
  xml: string | Buffer,
  fail: ErrorClass = InvalidRequest,
): ObjectFormat[] {
  const root = parseXml(xml, fail);
  expectRoot(root, "objectFormatList", [NS_V1, NS_V2], fail);
  const r = new Reader(root, "objectFormatList", ["objectFormat"], fail, ["count", "start", "total"]);
  const v2 = root.namespace === NS_V2;
  const formats = r
    .many("objectFormat", 1)
    .map((f) => readFormat(f, "objectFormatList/objectFormat", v2, fail));
  r.end();
  readSlice(root, formats.length, fail);
  return formats;
}

function readFormat(element: XmlElement, path: string, v2: boolean, fail: ErrorClass): ObjectFormat {
  const names = ["formatId", "formatName", "formatType", ...(v2 ? ["mediaType", "extension"] : [])];
  const r = new Reader(element, path, names, fail);
  const format: ObjectFormat = {
    formatId: nonEmpty(requiredText(r, "formatId"), `${path}/formatId`, fail),
    formatName: requiredText(r, "formatName"),
    formatType: parseEnum(requiredText(r, "formatType"), FORMAT_TYPES, `${path}/formatType`, fail),
  };
  if (v2) {
    const mediaType = r.optional("mediaType");
    if (mediaType) format.mediaType = readMediaType(mediaType, `${path}/mediaType`, fail);
    const extension = optionalText(r, "extension");
    if (extension !== undefined) format.extension = extension;
  }
  r.end();
  return format;
}
