/**
 * Shared XML helpers: namespaces, escaping, element writers; the safe parser and DateTime codecs live beside
 * this file and are re-exported here.
 */
import { formatDateTime } from "./datetime.ts";

export { formatDateTime, type ParseDateOptions, parseDateTime } from "./datetime.ts";
export { type ErrorClass, parseXml, type XmlElement, type XmlRoot } from "./xml-parse.ts";

export const NS_V1 = "http://ns.dataone.org/service/types/v1";
export const NS_V1_1 = "http://ns.dataone.org/service/types/v1.1";
export const NS_V2 = "http://ns.dataone.org/service/types/v2.0";

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** "Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]" (XML 1.0 section 2.2). */
const NOT_XML_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const TEXT_SPECIAL = /[&<>\r]|[^\t\n\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const ATTR_SPECIAL = /[&<>"\t\n\r]|[^\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const ENTITY: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  // Character references survive a parser's line-end and attribute-value normalisation.
  "\t": "&#9;",
  "\n": "&#10;",
  "\r": "&#13;",
};

/** True when the string holds a character XML 1.0 cannot carry (controls, lone surrogates, U+FFFE/FFFF). */
export function hasInvalidXmlChars(value: string): boolean {
  NOT_XML_CHAR.lastIndex = 0;
  return NOT_XML_CHAR.test(value);
}

/** Drop the characters XML 1.0 cannot carry. */
export function stripInvalidXmlChars(value: string): string {
  return value.replace(NOT_XML_CHAR, "");
}

/** Character data: escapes & < > and CR; characters XML cannot carry are dropped. */
export function escapeText(value: string): string {
  if (!TEXT_SPECIAL.test(value)) return value;
  return stripInvalidXmlChars(value).replace(/[&<>\r]/g, (c) => ENTITY[c] ?? c);
}

/** A double-quoted attribute value: also escapes the quote and the whitespace that attribute parsing normalises. */
export function escapeAttr(value: string): string {
  if (!ATTR_SPECIAL.test(value)) return value;
  return stripInvalidXmlChars(value).replace(/[&<>"\t\n\r]/g, (c) => ENTITY[c] ?? c);
}

/** `<name>text</name>` */
export function el(name: string, text: string): string {
  return `<${name}>${escapeText(text)}</${name}>`;
}

/** `<name>text</name>`, or nothing when the value is absent. */
export function optEl(name: string, text: string | number | boolean | undefined): string {
  return text === undefined ? "" : `<${name}>${escapeText(String(text))}</${name}>`;
}

/** One `<name>text</name>` per value. */
export function els(name: string, values: readonly string[]): string {
  let out = "";
  for (const value of values) out += `<${name}>${escapeText(value)}</${name}>`;
  return out;
}

/** `<name>DateTime</name>`, or nothing when absent. */
export function dateEl(name: string, date: Date | undefined): string {
  return date === undefined ? "" : `<${name}>${formatDateTime(date)}</${name}>`;
}

/** ` name="value"`, or nothing when absent. */
export function attr(name: string, value: string | number | boolean | undefined): string {
  return value === undefined ? "" : ` ${name}="${escapeAttr(String(value))}"`;
}

/** The prefix each namespace's root element is written with. */
const PREFIX: Record<string, string> = { [NS_V1]: "d1", [NS_V1_1]: "d1_v1.1", [NS_V2]: "d1_v2.0" };

/**
 * A whole document: declaration, then the root in `namespace` with a prefix, the given attributes and content.
 * "elementFormDefault=unqualified": only the root is namespace-qualified, children are written bare.
 */
export function document(namespace: string, root: string, attributes: string, content: string): string {
  const prefix = PREFIX[namespace] ?? "d1";
  const name = `${prefix}:${root}`;
  return `${XML_DECLARATION}<${name} xmlns:${prefix}="${namespace}"${attributes}>${content}</${name}>`;
}

/** The types namespace of an API version. */
export function namespaceOf(version: "v1" | "v2"): string {
  return version === "v1" ? NS_V1 : NS_V2;
}
