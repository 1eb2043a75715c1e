/**
 * Strict reading of parsed elements against an XSD content model: children in sequence order, no unknown
 * elements or attributes, typed simple values. Every failure names the element or attribute at fault.
 */
import { parseDateTime } from "./datetime.ts";
import type { ErrorClass, XmlElement, XmlRoot } from "./xml-parse.ts";

/** Attributes any element may carry: namespace declarations and xsi:* (schemaLocation, type). */
export const FREE_ATTRIBUTE = /^(xmlns(:.*)?|xsi:.*|xml:.*)$/;

/** Check the root element's local name and namespace. */
export function expectRoot(
  root: XmlRoot,
  localName: string,
  namespaces: readonly (string | undefined)[],
  fail: ErrorClass,
): void {
  if (root.localName !== localName || !namespaces.includes(root.namespace)) {
    const where = namespaces.map((ns) => (ns === undefined ? "no namespace" : ns)).join(" or ");
    const got = root.namespace === undefined ? "no namespace" : `namespace ${root.namespace}`;
    throw new fail(`Expected a <${localName}> document in ${where}; got <${root.localName}> in ${got}.`);
  }
}

/**
 * Walks an element's children in the order of an xs:sequence. `names` lists every child the sequence allows,
 * so a leftover child can be reported as misplaced, repeated or unknown.
 */
export class Reader {
  private next = 0;
  constructor(
    readonly element: XmlElement,
    private readonly path: string,
    private readonly names: readonly string[],
    readonly fail: ErrorClass,
    allowedAttributes: readonly string[] = [],
  ) {
    checkAttributes(element, path, allowedAttributes, fail);
    if (element.text.trim() !== "") throw new fail(`<${path}> may only contain elements, not text.`);
  }

  /** The next child if it is `name` (minOccurs=0, maxOccurs=1). */
  optional(name: string): XmlElement | undefined {
    const child = this.element.children[this.next];
    if (child?.name !== name) return undefined;
    this.next++;
    return child;
  }

  /** The next child, which must be `name` (minOccurs=1, maxOccurs=1). */
  required(name: string): XmlElement {
    const child = this.optional(name);
    if (!child) {
      const next = this.element.children[this.next];
      if (next && !this.names.includes(next.name)) this.end(); // reports the unknown element
      const present = this.element.children.some((c) => c.name === name);
      throw new this.fail(
        present
          ? `<${this.path}/${name}> is out of order; the XSD sequence fixes the order of the elements.`
          : `<${this.path}> is missing the required element <${name}>.`,
      );
    }
    return child;
  }

  /** Every consecutive `name` child (maxOccurs=unbounded); at least `min` of them. */
  many(name: string, min = 0): XmlElement[] {
    const out: XmlElement[] = [];
    for (let child = this.optional(name); child; child = this.optional(name)) out.push(child);
    if (out.length < min) this.required(name);
    return out;
  }

  /** Fails on any child not consumed. */
  end(): void {
    const child = this.element.children[this.next];
    if (!child) return;
    if (!this.names.includes(child.name))
      throw new this.fail(`<${this.path}> has an unknown element <${child.name}>.`);
    const seen = this.element.children.slice(0, this.next).some((c) => c.name === child.name);
    throw new this.fail(
      seen
        ? `<${this.path}/${child.name}> appears more often than the XSD allows.`
        : `<${this.path}/${child.name}> is out of order; the XSD sequence fixes the order of the elements.`,
    );
  }

  /** "parent/child", for descriptions. */
  childPath(name: string): string {
    return `${this.path}/${name}`;
  }
}

export function checkAttributes(
  element: XmlElement,
  path: string,
  allowed: readonly string[],
  fail: ErrorClass,
): void {
  for (const name of element.attributes.keys()) {
    if (!allowed.includes(name) && !FREE_ATTRIBUTE.test(name)) {
      throw new fail(`<${path}> has an unknown attribute "${name}".`);
    }
  }
}

/** Text-only content (simple type): no child elements, no attributes but the `allowed` ones. */
export function textOf(
  element: XmlElement,
  path: string,
  fail: ErrorClass,
  allowed: readonly string[] = [],
): string {
  checkAttributes(element, path, allowed, fail);
  if (element.children.length > 0) throw new fail(`<${path}> must contain text only, not elements.`);
  return element.text;
}

/** d1:NonEmptyString: "at least length 1 and it must contain non-whitespace". */
export function nonEmpty(value: string, path: string, fail: ErrorClass): string {
  if (value.trim() === "") throw new fail(`${label(path)} must not be empty.`);
  return value;
}

const UNICODE_WHITESPACE = /[\p{White_Space}\p{Cc}]/u;

/**
 * d1:Identifier (NonEmptyNoWhitespaceString800): "doesn't allow whitespace characters ... Unicode whitespace
 * characters outside of the ASCII character set need to be checked programmatically"; "a maximum length of 800
 * characters" (counted in code points); "printable characters".
 */
export function checkIdentifier(value: string, path: string, fail: ErrorClass): string {
  if (value === "") throw new fail(`${label(path)} must not be empty.`);
  const bad = UNICODE_WHITESPACE.exec(value);
  if (bad) {
    const code = bad[0].codePointAt(0)?.toString(16).toUpperCase().padStart(4, "0");
    throw new fail(`${label(path)} must not contain whitespace or control characters (found U+${code}).`);
  }
  let length = 0;
  for (const _ of value) length++;
  if (length > 800) throw new fail(`${label(path)} is ${length} characters long; at most 800 are allowed.`);
  return value;
}

/** xs:boolean: "true", "false", "1" or "0" (whitespace collapsed). */
export function parseBoolean(value: string, path: string, fail: ErrorClass): boolean {
  const v = value.trim();
  if (v === "true" || v === "1") return true;
  if (v === "false" || v === "0") return false;
  throw new fail(`${label(path)} must be a boolean (true, false, 1 or 0), not "${clip(value)}".`);
}

/** xs:unsignedLong (or a bounded integer), as a safe JavaScript integer. */
export function parseInteger(
  value: string,
  path: string,
  fail: ErrorClass,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const v = value.trim();
  const n = /^[+-]?\d+$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range = min === 0 ? "a non-negative integer" : `an integer from ${min} to ${max}`;
    throw new fail(`${label(path)} must be ${range}, not "${clip(value)}".`);
  }
  return Object.is(n, -0) ? 0 : n;
}

export const INT_MIN = -2147483648;
export const INT_MAX = 2147483647;

/** xs:dateTime. */
export function parseDate(value: string, path: string, fail: ErrorClass): Date {
  const date = parseDateTime(value, { xsd: true });
  if (!date)
    throw new fail(
      `${label(path)} must be an xs:dateTime such as 2024-01-02T03:04:05.678Z, not "${clip(value)}".`,
    );
  return date;
}

/** A value from an enumeration (whitespace collapsed for token types). */
export function parseEnum<T extends string>(
  value: string,
  allowed: readonly T[],
  path: string,
  fail: ErrorClass,
): T {
  const v = value.trim();
  if (!(allowed as readonly string[]).includes(v)) {
    throw new fail(`${label(path)} must be one of ${allowed.join(", ")}, not "${clip(value)}".`);
  }
  return v as T;
}

/** A required attribute. */
export function requiredAttr(element: XmlElement, name: string, path: string, fail: ErrorClass): string {
  const value = element.attributes.get(name);
  if (value === undefined) throw new fail(`<${path}> is missing the required attribute "${name}".`);
  return value;
}

/** The text of a required simple-content child. */
export function requiredText(reader: Reader, name: string): string {
  return textOf(reader.required(name), reader.childPath(name), reader.fail);
}

/** The text of an optional simple-content child. */
export function optionalText(reader: Reader, name: string): string | undefined {
  const child = reader.optional(name);
  return child ? textOf(child, reader.childPath(name), reader.fail) : undefined;
}

/** The texts of repeated simple-content children. */
export function manyTexts(reader: Reader, name: string, min = 0): string[] {
  return reader.many(name, min).map((child) => textOf(child, reader.childPath(name), reader.fail));
}

/** Put a description path in a sentence: "<a/b>" for elements, "a/@b" for attributes. */
function label(path: string): string {
  return path.includes("@") ? `Attribute ${path}` : `<${path}>`;
}

function clip(value: string): string {
  return value.length > 60 ? `${value.slice(0, 60)}...` : value;
}
