/**
 * Safe XML parsing into a small element tree, in one pass of a strict (well-formedness checking) SAX parser,
 * saxes. Documents with a DOCTYPE or any other markup declaration are refused outright (no external entities,
 * no entity expansion); only the five predefined entities and character references are decoded.
 */
import { SaxesParser, type SaxesTagPlain } from "saxes";
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

const NOT_XML_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** Parse a whole document; every problem is thrown as `fail` with a description saying what is wrong. */
export function parseXml(input: string | Buffer, fail: ErrorClass): XmlRoot {
  const root = buildTree(checkedText(input, fail), fail);
  return { ...root, ...qualifiedRoot(root.name, root.attributes, fail) };
}

/**
 * The document as text, checked before parsing: decoded from bytes, only characters XML 1.0 allows, and no DOCTYPE
 * or other markup declaration.
 */
export function checkedText(input: string | Buffer, fail: ErrorClass): string {
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
  return text;
}

/** The root element's local name and namespace, from its name as written and its attributes. */
export function qualifiedRoot(
  name: string,
  attributes: ReadonlyMap<string, string>,
  fail: ErrorClass,
): { localName: string; namespace: string | undefined } {
  const m = /^(?:([^:]+):)?([^:]+)$/.exec(name);
  if (!m) throw new fail(`The root element name <${name}> is not a valid qualified name.`);
  const [, prefix, localName = ""] = m;
  const namespace = attributes.get(prefix === undefined ? "xmlns" : `xmlns:${prefix}`);
  if (prefix !== undefined && namespace === undefined) {
    throw new fail(`The namespace prefix "${prefix}" of the root element <${name}> is not declared.`);
  }
  return { localName, namespace: namespace === "" ? undefined : namespace };
}

/** A strict SAX parser whose errors are thrown as `fail`; the caller adds its handlers, then writes the text. */
export function strictParser(text: string, fail: ErrorClass): SaxesParser {
  const parser = new SaxesParser();
  parser.on("error", (error) => {
    throw new fail(describeError(error.message, text));
  });
  return parser;
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

/**
 * The element tree of a well-formed document. saxes decodes references, normalises line ends (XML 1.0 section
 * 2.11) and attribute whitespace (section 3.3.3), and refuses what is not well-formed: unbalanced tags, text or a
 * second element after the root, undefined entities, "<" in an attribute value.
 */
function buildTree(text: string, fail: ErrorClass): XmlElement {
  const parser = strictParser(text, fail);
  const open: XmlElement[] = [];
  let root: XmlElement | undefined;
  const addText = (value: string) => {
    const parent = open[open.length - 1];
    if (!parent) return; // whitespace around the root (anything else is an error saxes reports)
    parent.text += value;
    parent.content.push(value);
  };
  parser.on("text", addText);
  parser.on("cdata", addText);
  parser.on("opentag", (tag: SaxesTagPlain) => {
    const element: XmlElement = {
      name: tag.name,
      attributes: new Map(Object.entries(tag.attributes)),
      children: [],
      text: "",
      content: [],
    };
    const parent = open[open.length - 1];
    if (parent) {
      parent.children.push(element);
      parent.content.push(element);
    } else root = element;
    open.push(element);
  });
  parser.on("closetag", () => {
    open.pop();
  });
  parser.write(text).close();
  if (!root) throw new fail("The XML document must have exactly one root element.");
  return root;
}

/** saxes's message ("line:column: what"), naming the reference at fault when it is one. */
function describeError(message: string, text: string): string {
  if (/entity|reference/i.test(message)) {
    const reference = /&(?!(?:amp|lt|gt|quot|apos|#x[0-9a-fA-F]+|#[0-9]+);)[^;&<\s]{0,20};?/.exec(text)?.[0];
    if (reference !== undefined) {
      return `The reference "${reference}" is not one XML defines; only &amp; &lt; &gt; &quot; &apos; and character references are accepted.`;
    }
  }
  return `The document is not well-formed XML: ${message}`;
}
