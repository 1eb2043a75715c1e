/**
 * Small answer documents: Checksum, Identifier, ChecksumAlgorithmList, ObjectLocationList (types v1),
 * QueryEngineList (v1.1) and OptionList (v2.0).
 */
import { InvalidRequest } from "../../errors/exceptions.ts";
import type { Checksum } from "../sysmeta.ts";
import {
  attr,
  document,
  type ErrorClass,
  el,
  els,
  escapeAttr,
  escapeText,
  NS_V1,
  NS_V1_1,
  NS_V2,
  parseXml,
} from "../xml.ts";
import { checkIdentifier, expectRoot, manyTexts, nonEmpty, Reader, textOf } from "../xml-read.ts";
import { readChecksum } from "./sysmeta-xml.ts";

export function serializeChecksum(checksum: Checksum): string {
  return document(
    NS_V1,
    "checksum",
    ` algorithm="${escapeAttr(checksum.algorithm)}"`,
    escapeText(checksum.value),
  );
}

export function parseChecksum(xml: string | Buffer, fail: ErrorClass = InvalidRequest): Checksum {
  const root = parseXml(xml, fail);
  expectRoot(root, "checksum", [NS_V1], fail);
  return readChecksum(root, "checksum", fail);
}

export function serializeIdentifier(identifier: string): string {
  return document(NS_V1, "identifier", "", escapeText(identifier));
}

export function parseIdentifier(xml: string | Buffer, fail: ErrorClass = InvalidRequest): string {
  const root = parseXml(xml, fail);
  expectRoot(root, "identifier", [NS_V1], fail);
  return checkIdentifier(textOf(root, "identifier", fail), "identifier", fail);
}

/** ChecksumAlgorithmList: "algorithm minOccurs=1 maxOccurs=unbounded". */
export function serializeChecksumAlgorithmList(algorithms: readonly string[]): string {
  return document(NS_V1, "checksumAlgorithmList", "", els("algorithm", algorithms));
}

export interface ObjectLocation {
  nodeIdentifier: string;
  baseURL: string;
  /** The API versions the node serves ("version minOccurs=1 maxOccurs=unbounded"). */
  versions: string[];
  /** Where the object can be read: baseURL + /<version>/object/<pid>. */
  url: string;
  preference?: number;
}

export interface ObjectLocationList {
  identifier: string;
  locations: ObjectLocation[];
}

/** ObjectLocationList: "identifier, objectLocation*"; each "nodeIdentifier, baseURL, version+, url, preference?". */
export function serializeObjectLocationList(list: ObjectLocationList): string {
  let content = el("identifier", list.identifier);
  for (const l of list.locations) {
    content +=
      `<objectLocation>${el("nodeIdentifier", l.nodeIdentifier)}${el("baseURL", l.baseURL)}${els("version", l.versions)}` +
      `${el("url", l.url)}${l.preference === undefined ? "" : `<preference>${l.preference}</preference>`}</objectLocation>`;
  }
  return document(NS_V1, "objectLocationList", "", content);
}

/** QueryEngineList (types v1.1): "queryEngine minOccurs=0 maxOccurs=unbounded". */
export function serializeQueryEngineList(engines: readonly string[]): string {
  return document(NS_V1_1, "queryEngineList", "", els("queryEngine", engines));
}

export function parseQueryEngineList(xml: string | Buffer, fail: ErrorClass = InvalidRequest): string[] {
  const root = parseXml(xml, fail);
  expectRoot(root, "queryEngineList", [NS_V1_1], fail);
  const reader = new Reader(root, "queryEngineList", ["queryEngine"], fail);
  const engines = manyTexts(reader, "queryEngine").map((e) =>
    nonEmpty(e, "queryEngineList/queryEngine", fail),
  );
  reader.end();
  return engines;
}

export interface OptionList {
  key: string;
  description: string;
  options: string[];
}

/** OptionList (types v2.0): attributes key and description (required), "option minOccurs=0". */
export function serializeOptionList(list: OptionList): string {
  return document(
    NS_V2,
    "optionList",
    attr("key", list.key) + attr("description", list.description),
    els("option", list.options),
  );
}
