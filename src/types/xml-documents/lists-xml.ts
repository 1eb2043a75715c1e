/**
 * The paged lists: ObjectList (types v1 only; listObjects answers it in both API versions) and Log (v1 and
 * v2.0). Both extend Slice: "count, start, total: xs:int, use=required"; count is the number of entries sent.
 */
import { InvalidRequest } from "../../errors/exceptions.ts";
import type { Checksum } from "../sysmeta.ts";
import {
  dateEl,
  document,
  type ErrorClass,
  el,
  escapeText,
  NS_V1,
  namespaceOf,
  parseXml,
  type XmlRoot,
} from "../xml.ts";
import {
  checkIdentifier,
  expectRoot,
  INT_MAX,
  nonEmpty,
  parseDate,
  parseInteger,
  Reader,
  requiredAttr,
  requiredText,
} from "../xml-read.ts";
import { V1_EVENTS } from "./log-xml.ts";
import { checksumElement, readChecksum } from "./sysmeta-xml.ts";

export { parseLog, V1_EVENTS } from "./log-xml.ts";

export interface ObjectInfo {
  identifier: string;
  formatId: string;
  checksum: Checksum;
  dateSysMetadataModified: Date;
  size: number;
}

export interface LogEntry {
  entryId: string;
  identifier: string;
  ipAddress: string;
  userAgent: string;
  subject: string;
  event: string;
  dateLogged: Date;
  nodeIdentifier: string;
}

export interface Slice<T> {
  start: number;
  total: number;
  items: T[];
}

const sliceAttributes = (count: number, start: number, total: number): string =>
  ` count="${count}" start="${start}" total="${total}"`;

export function serializeObjectList(page: Slice<ObjectInfo>): string {
  let content = "";
  for (const o of page.items) {
    content +=
      `<objectInfo><identifier>${escapeText(o.identifier)}</identifier><formatId>${escapeText(o.formatId)}</formatId>` +
      `${checksumElement(o.checksum)}${dateEl("dateSysMetadataModified", o.dateSysMetadataModified)}` +
      `<size>${o.size}</size></objectInfo>`;
  }
  return document(NS_V1, "objectList", sliceAttributes(page.items.length, page.start, page.total), content);
}

/**
 * A Log document. In v2.0 "event" is any NonEmptyString; the v1 Event type is an enumeration, so a v1 log
 * leaves out entries whose event is not one of V1_EVENTS (count then says how many were sent; total is kept).
 */
export function serializeLog(page: Slice<LogEntry>, version: "v1" | "v2"): string {
  let content = "";
  let count = 0;
  for (const e of page.items) {
    if (version === "v1" && !(V1_EVENTS as readonly string[]).includes(e.event)) continue;
    count++;
    content +=
      `<logEntry>${el("entryId", e.entryId)}${el("identifier", e.identifier)}${el("ipAddress", e.ipAddress)}` +
      `${el("userAgent", e.userAgent)}${el("subject", e.subject)}${el("event", e.event)}` +
      `${dateEl("dateLogged", e.dateLogged)}${el("nodeIdentifier", e.nodeIdentifier)}</logEntry>`;
  }
  return document(namespaceOf(version), "log", sliceAttributes(count, page.start, page.total), content);
}

/**
 * Read an objectList document (another node's listObjects answer). `anyIdentifier` keeps an entry whose
 * identifier is not a valid DataONE identifier (the caller judges each entry: one bad entry need not lose a page).
 */
export function parseObjectList(
  xml: string | Buffer,
  fail: ErrorClass = InvalidRequest,
  { anyIdentifier = false } = {},
): Slice<ObjectInfo> {
  const root = parseXml(xml, fail);
  expectRoot(root, "objectList", [NS_V1], fail);
  const r = new Reader(root, "objectList", ["objectInfo"], fail, ["count", "start", "total"]);
  const path = "objectList/objectInfo";
  const names = ["identifier", "formatId", "checksum", "dateSysMetadataModified", "size"];
  const items = r.many("objectInfo").map((info): ObjectInfo => {
    const o = new Reader(info, path, names, fail);
    const item: ObjectInfo = {
      identifier: anyIdentifier
        ? requiredText(o, "identifier")
        : checkIdentifier(requiredText(o, "identifier"), `${path}/identifier`, fail),
      formatId: nonEmpty(requiredText(o, "formatId"), `${path}/formatId`, fail),
      checksum: readChecksum(o.required("checksum"), `${path}/checksum`, fail),
      dateSysMetadataModified: parseDate(
        requiredText(o, "dateSysMetadataModified"),
        `${path}/dateSysMetadataModified`,
        fail,
      ),
      size: parseInteger(requiredText(o, "size"), `${path}/size`, fail),
    };
    o.end();
    return item;
  });
  r.end();
  return { ...readSlice(root, items.length, fail), items };
}

/** The Slice attributes; count must equal the number of entries. */
export function readSlice(
  root: XmlRoot,
  entries: number,
  fail: ErrorClass,
): { start: number; total: number } {
  const name = root.localName;
  const int = (attribute: string) =>
    parseInteger(requiredAttr(root, attribute, name, fail), `${name}/@${attribute}`, fail, 0, INT_MAX);
  const count = int("count");
  if (count !== entries)
    throw new fail(`Attribute ${name}/@count is ${count} but the list has ${entries} entries.`);
  return { start: int("start"), total: int("total") };
}
