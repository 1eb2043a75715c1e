/**
 * DataONE exceptions on the wire (dataoneErrors.xsd, no namespace):
 * `<error name errorCode detailCode identifier? nodeId?>` with "description minOccurs=0" and
 * "traceInformation minOccurs=0 type=xs:anyType".
 */
import { InvalidRequest } from "../../errors/exceptions.ts";
import { attr, type ErrorClass, escapeText, parseXml, XML_DECLARATION, type XmlElement } from "../xml.ts";
import {
  expectRoot,
  INT_MAX,
  INT_MIN,
  optionalText,
  parseInteger,
  Reader,
  requiredAttr,
} from "../xml-read.ts";

export interface ErrorDocument {
  /** The exception name, e.g. "NotFound". */
  exception: string;
  errorCode: number;
  detailCode: string;
  description: string;
  /** The identifier the failure is about (the `identifier` attribute). */
  pid?: string;
  nodeId?: string;
  traceInformation?: string;
}

export function serializeError(e: ErrorDocument): string {
  const trace =
    e.traceInformation === undefined
      ? ""
      : `<traceInformation>${escapeText(e.traceInformation)}</traceInformation>`;
  return (
    `${XML_DECLARATION}<error${attr("name", e.exception)}${attr("errorCode", e.errorCode)}` +
    `${attr("detailCode", e.detailCode)}${attr("identifier", e.pid)}${attr("nodeId", e.nodeId)}>` +
    `<description>${escapeText(e.description)}</description>${trace}</error>`
  );
}

/** Read an `<error>` document (a SynchronizationFailed message, another node's answer). */
export function parseError(xml: string | Buffer, fail: ErrorClass = InvalidRequest): ErrorDocument {
  const root = parseXml(xml, fail);
  expectRoot(root, "error", [undefined], fail);
  const attributes = ["name", "errorCode", "detailCode", "identifier", "nodeId"];
  const reader = new Reader(root, "error", ["description", "traceInformation"], fail, attributes);
  const exception = requiredAttr(root, "name", "error", fail).trim();
  if (exception === "") throw new fail("Attribute error/@name must not be empty.");
  const errorCode = parseInteger(
    requiredAttr(root, "errorCode", "error", fail),
    "error/@errorCode",
    fail,
    INT_MIN,
    INT_MAX,
  );
  const out: ErrorDocument = {
    exception,
    errorCode,
    detailCode: requiredAttr(root, "detailCode", "error", fail).trim(),
    description: optionalText(reader, "description") ?? "",
  };
  const trace = reader.optional("traceInformation");
  if (trace) out.traceInformation = deepText(trace);
  reader.end();
  const pid = root.attributes.get("identifier");
  if (pid !== undefined) out.pid = pid;
  const nodeId = root.attributes.get("nodeId");
  if (nodeId !== undefined) out.nodeId = nodeId;
  return out;
}

/** All character data inside an element, in document order (traceInformation may hold markup). */
function deepText(element: XmlElement): string {
  return element.content.map((part) => (typeof part === "string" ? part : deepText(part))).join("");
}
