/**
 * Reading a log document (another node's getLogRecords answer) straight from the parser's events into entries,
 * with no element tree: log aggregation reads millions of entries, and building then walking a tree per page was
 * most of its CPU. The checks are the XSD's, as the tree-based readers make them: the log's attributes, one
 * logEntry after another, each with the eight elements in sequence order, text only, typed values.
 */
import type { SaxesTagPlain } from "saxes";
import { InvalidRequest } from "../../errors/exceptions.ts";
import { NS_V1, NS_V2 } from "../xml.ts";
import { checkedText, type ErrorClass, qualifiedRoot, strictParser } from "../xml-parse.ts";
import {
  checkIdentifier,
  FREE_ATTRIBUTE,
  INT_MAX,
  nonEmpty,
  parseDate,
  parseEnum,
  parseInteger,
} from "../xml-read.ts";
import type { LogEntry, Slice } from "./lists-xml.ts";

/** v1 Event: "create, read, update, delete, replicate, synchronization_failed, replication_failed". */
export const V1_EVENTS = [
  "create",
  "read",
  "update",
  "delete",
  "replicate",
  "synchronization_failed",
  "replication_failed",
] as const;

/** The LogEntry sequence. */
const FIELDS = [
  "entryId",
  "identifier",
  "ipAddress",
  "userAgent",
  "subject",
  "event",
  "dateLogged",
  "nodeIdentifier",
] as const;
const ENTRY = "log/logEntry";
const SLICE = ["count", "start", "total"];

/** Read a v1 or v2.0 log document; any deviation from the XSD is thrown as `fail`. */
export function parseLog(xml: string | Buffer, fail: ErrorClass = InvalidRequest): Slice<LogEntry> {
  const text = checkedText(xml, fail);
  const parser = strictParser(text, fail);
  const items: LogEntry[] = [];
  let slice: Map<string, string> | undefined;
  let v1 = false;
  let depth = 0;
  let field = 0; // the index in FIELDS of the next element expected in this entry
  let value = "";
  const values: string[] = [];

  parser.on("opentag", (tag: SaxesTagPlain) => {
    depth++;
    if (depth === 1) {
      slice = attributesOf(tag, "log", SLICE, fail);
      const { localName, namespace } = qualifiedRoot(tag.name, slice, fail);
      if (localName !== "log" || (namespace !== NS_V1 && namespace !== NS_V2)) {
        const got = namespace === undefined ? "no namespace" : `namespace ${namespace}`;
        throw new fail(`Expected a <log> document in ${NS_V1} or ${NS_V2}; got <${localName}> in ${got}.`);
      }
      v1 = namespace === NS_V1;
    } else if (depth === 2) {
      if (tag.name !== "logEntry") throw new fail(`<log> has an unknown element <${tag.name}>.`);
      noAttributes(tag, ENTRY, fail);
      field = 0;
    } else if (depth === 3) {
      if (tag.name !== FIELDS[field]) throw new fail(misplaced(tag.name, field));
      noAttributes(tag, ENTRY, fail);
      value = "";
    } else {
      throw new fail(`<${ENTRY}/${FIELDS[field]}> must contain text only, not elements.`);
    }
  });
  const onText = (data: string) => {
    if (depth === 3) value += data;
    else if (depth > 0 && data.trim() !== "")
      throw new fail(`<${depth === 1 ? "log" : ENTRY}> may only contain elements, not text.`);
  };
  parser.on("text", onText);
  parser.on("cdata", onText);
  parser.on("closetag", () => {
    if (depth === 3) values[field++] = value;
    else if (depth === 2) {
      if (field < FIELDS.length)
        throw new fail(`<${ENTRY}> is missing the required element <${FIELDS[field]}>.`);
      items.push(entryOf(values, v1, fail));
    }
    depth--;
  });
  parser.write(text).close();
  if (!slice) throw new fail("The XML document must have exactly one root element.");
  return { ...sliceOf(slice, items.length, fail), items };
}

function entryOf(values: readonly string[], v1: boolean, fail: ErrorClass): LogEntry {
  const [entryId, identifier, ipAddress, userAgent, subject, event, dateLogged, nodeIdentifier] = values as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  return {
    entryId: nonEmpty(entryId, `${ENTRY}/entryId`, fail),
    identifier: checkIdentifier(identifier, `${ENTRY}/identifier`, fail),
    ipAddress,
    userAgent,
    subject: nonEmpty(subject, `${ENTRY}/subject`, fail),
    event: v1
      ? parseEnum(event, V1_EVENTS, `${ENTRY}/event`, fail)
      : nonEmpty(event, `${ENTRY}/event`, fail).trim(),
    dateLogged: parseDate(dateLogged, `${ENTRY}/dateLogged`, fail),
    nodeIdentifier: nonEmpty(nodeIdentifier, `${ENTRY}/nodeIdentifier`, fail),
  };
}

/** Why `name` cannot come where FIELDS[expected] is due. */
function misplaced(name: string, expected: number): string {
  const at = (FIELDS as readonly string[]).indexOf(name);
  if (at === -1) return `<${ENTRY}> has an unknown element <${name}>.`;
  if (at < expected) return `<${ENTRY}/${name}> appears more often than the XSD allows.`;
  return `<${ENTRY}> is missing the required element <${FIELDS[expected]}>.`;
}

/**
 * An element of `parent` (or `parent` itself, a logEntry) carries no attributes but the free ones: checked without
 * building a map or a path per element (a log page has nine elements per entry).
 */
function noAttributes(tag: SaxesTagPlain, parent: string, fail: ErrorClass): void {
  for (const name in tag.attributes) {
    if (FREE_ATTRIBUTE.test(name)) continue;
    const path = tag.name === "logEntry" ? parent : `${parent}/${tag.name}`;
    throw new fail(`<${path}> has an unknown attribute "${name}".`);
  }
}

function attributesOf(
  tag: SaxesTagPlain,
  path: string,
  allowed: readonly string[],
  fail: ErrorClass,
): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const name in tag.attributes) {
    if (!allowed.includes(name) && !FREE_ATTRIBUTE.test(name))
      throw new fail(`<${path}> has an unknown attribute "${name}".`);
    attributes.set(name, tag.attributes[name] as string);
  }
  return attributes;
}

/** The Slice attributes; count must equal the number of entries. */
function sliceOf(
  attributes: ReadonlyMap<string, string>,
  entries: number,
  fail: ErrorClass,
): { start: number; total: number } {
  const int = (name: string) => {
    const value = attributes.get(name);
    if (value === undefined) throw new fail(`<log> is missing the required attribute "${name}".`);
    return parseInteger(value, `log/@${name}`, fail, 0, INT_MAX);
  };
  const count = int("count");
  if (count !== entries)
    throw new fail(`Attribute log/@count is ${count} but the list has ${entries} entries.`);
  return { start: int("start"), total: int("total") };
}
