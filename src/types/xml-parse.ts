/**
 * Safe XML parsing into a small element tree. Documents with a DOCTYPE or any other markup declaration are
 * refused outright (no external entities, no entity expansion); only the five predefined entities and character
 * references are decoded.
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import type { D1Error } from "../errors/exceptions.ts";

/** The exception a parse failure is reported as (InvalidSystemMetadata, InvalidRequest, ...). */
export type ErrorClass = new (description: string) => D1Error;

export interface XmlElement {
  /** The name as written, with its prefix if any. */
  name: string;
  attributes: ReadonlyMap<string, string>;
  /** Child elements in document order. */
  children: XmlElement[];
  /** Character data directly inside this element (entity references decoded). */
  text: string;
  /** Children and character data interleaved, in document order. */
  content: (XmlElement | string)[];
}

export interface XmlRoot extends XmlElement {
  localName: string;
  /** The namespace the root element is in; undefined for an unqualified root (e.g. `<error>`). */
  namespace: string | undefined;
}

type OrderedNode = Record<string, unknown> & { ":@"?: Record<string, string> };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  htmlEntities: false,
  trimValues: false,
  cdataPropName: "#cdata",
  ignoreDeclaration: true,
  ignorePiTags: true,
});

const NOT_XML_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const PREDEFINED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** Parse a whole document; every problem is thrown as `fail` with a description saying what is wrong. */
export function parseXml(input: string | Buffer, fail: ErrorClass): XmlRoot {
  let text = typeof input === "string" ? input : decode(input, fail);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (/^\s+<\?xml\s/.test(text)) text = text.trimStart();
  const bad = NOT_XML_CHAR.exec(text);
  if (bad) {
    const code = bad[0].codePointAt(0)?.toString(16).toUpperCase().padStart(4, "0");
    throw new fail(`The XML document contains a character XML 1.0 does not allow (U+${code}).`);
  }
  const declaration = markupDeclaration(text);
  if (declaration !== undefined) {
    throw new fail(
      `XML documents with a DOCTYPE or entity declarations are not accepted (found "${declaration}...").`,
    );
  }
  const valid = XMLValidator.validate(text, { allowBooleanAttributes: false });
  if (valid !== true) {
    throw new fail(`The document is not well-formed XML: ${valid.err.msg} (line ${valid.err.line}).`);
  }
  let nodes: OrderedNode[];
  try {
    nodes = parser.parse(text) as OrderedNode[];
  } catch (error) {
    throw new fail(`The XML document could not be parsed: ${(error as Error).message}`);
  }
  const roots = nodes.filter((node) => elementName(node) !== undefined);
  const [first] = roots;
  if (roots.length !== 1 || !first) throw new fail("The XML document must have exactly one root element.");
  const stray = nodes.some((n) => elementName(n) === undefined && String(n["#text"] ?? "x").trim() !== "");
  if (stray || !endsWithElement(text)) {
    throw new fail("The document is not well-formed XML: there is content after the root element.");
  }
  const root = toElement(first, fail);
  const m = /^(?:([^:]+):)?([^:]+)$/.exec(root.name);
  if (!m) throw new fail(`The root element name <${root.name}> is not a valid qualified name.`);
  const [, prefix, localName = ""] = m;
  const namespace = root.attributes.get(prefix === undefined ? "xmlns" : `xmlns:${prefix}`);
  if (prefix !== undefined && namespace === undefined) {
    throw new fail(`The namespace prefix "${prefix}" of the root element <${root.name}> is not declared.`);
  }
  return { ...root, localName, namespace: namespace === "" ? undefined : namespace };
}

/** Bytes to text: UTF-8 (default, strict), UTF-16 with a byte order mark, or ISO-8859-1 when declared. */
function decode(bytes: Buffer, fail: ErrorClass): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes);
  const head = bytes.subarray(0, 200).toString("latin1");
  const declared = /^(?:\uFEFF|\xEF\xBB\xBF)?\s*<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(
    head,
  )?.[1];
  const encoding = (declared ?? "utf-8").toLowerCase();
  if (encoding === "iso-8859-1" || encoding === "latin1" || encoding === "latin-1")
    return bytes.toString("latin1");
  if (!["utf-8", "utf8", "us-ascii", "ascii"].includes(encoding)) {
    throw new fail(`The XML encoding "${declared}" is not supported; send UTF-8.`);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new fail("The XML document is not valid UTF-8.");
  }
}

/** The first `<!...` that is neither a comment nor a CDATA section (DOCTYPE, ENTITY, ELEMENT, ...). */
function markupDeclaration(text: string): string | undefined {
  let i = text.indexOf("<!");
  while (i !== -1) {
    const end = text.startsWith("<!--", i)
      ? text.indexOf("-->", i + 4) + 3
      : text.startsWith("<![CDATA[", i)
        ? text.indexOf("]]>", i + 9) + 3
        : -1;
    if (end === -1) return text.slice(i, i + 20);
    if (end === 2) return undefined; // unterminated: the well-formedness check reports it
    i = text.indexOf("<!", end);
  }
  return undefined;
}

/** Whether the document ends with the root's end tag (then only whitespace, comments and PIs may follow). */
function endsWithElement(text: string): boolean {
  let end = text.trimEnd();
  for (;;) {
    const open = end.endsWith("-->")
      ? end.lastIndexOf("<!--")
      : end.endsWith("?>")
        ? end.lastIndexOf("<?")
        : -1;
    if (open === -1) break;
    end = end.slice(0, open).trimEnd();
  }
  return /(<\/[^<>]+>|\/>)$/.test(end);
}

function elementName(node: OrderedNode): string | undefined {
  for (const key of Object.keys(node)) if (key !== ":@" && key !== "#text" && key !== "#cdata") return key;
  return undefined;
}

function toElement(node: OrderedNode, fail: ErrorClass): XmlElement {
  const name = elementName(node) ?? "";
  const attributes = new Map<string, string>();
  for (const [key, raw] of Object.entries(node[":@"] ?? {}))
    attributes.set(key, decodeValue(raw, true, fail));
  const children: XmlElement[] = [];
  const content: (XmlElement | string)[] = [];
  let text = "";
  for (const child of (node[name] as OrderedNode[] | undefined) ?? []) {
    if (typeof child["#text"] === "string") {
      const value = decodeValue(child["#text"], false, fail);
      text += value;
      content.push(value);
    } else if (Array.isArray(child["#cdata"])) {
      const value = (child["#cdata"] as OrderedNode[]).map((t) => String(t["#text"] ?? "")).join("");
      const normalised = value.replace(/\r\n?/g, "\n");
      text += normalised;
      content.push(normalised);
    } else if (elementName(child) !== undefined) {
      const element = toElement(child, fail);
      children.push(element);
      content.push(element);
    }
  }
  return { name, attributes, children, text, content };
}

/**
 * Decode character data or an attribute value: line ends become LF (XML 1.0 section 2.11), attribute whitespace
 * becomes a space (section 3.3.3), then the predefined entities and character references are replaced.
 */
function decodeValue(raw: string, attribute: boolean, fail: ErrorClass): string {
  let value = raw.replace(/\r\n?/g, "\n");
  if (attribute) {
    if (value.includes("<")) throw new fail(`An attribute value contains "<", which XML does not allow.`);
    value = value.replace(/[\t\n]/g, " ");
  }
  if (!value.includes("&")) return value;
  return value.replace(/&([^;&]*)(;?)/g, (whole, ref: string, semicolon: string) => {
    const decoded = semicolon ? decodeReference(ref) : undefined;
    if (decoded === undefined) {
      throw new fail(
        `The reference "${whole.slice(0, 20)}" is not one XML defines; only &amp; &lt; &gt; &quot; &apos; and character references are accepted.`,
      );
    }
    return decoded;
  });
}

function decodeReference(ref: string): string | undefined {
  const predefined = PREDEFINED[ref];
  if (predefined !== undefined) return predefined;
  const m = /^#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}))$/.exec(ref);
  if (!m) return undefined;
  const code = m[1] !== undefined ? Number.parseInt(m[1], 16) : Number(m[2]);
  if (code > 0x10ffff) return undefined;
  const char = String.fromCodePoint(code);
  return NOT_XML_CHAR.test(char) ? undefined : char;
}
