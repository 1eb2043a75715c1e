/** Reading metadata documents by local element names, whatever prefixes they use. */
import type { XmlElement } from "../types/xml-parse.ts";

export function localName(element: XmlElement): string {
  const colon = element.name.indexOf(":");
  return colon < 0 ? element.name : element.name.slice(colon + 1);
}

/** Children with this local name. */
export function children(element: XmlElement | undefined, name: string): XmlElement[] {
  return element ? element.children.filter((c) => localName(c) === name) : [];
}

/** Elements reached by a path of local names ("dataset/creator/individualName"). */
export function path(element: XmlElement | undefined, route: string): XmlElement[] {
  let current = element ? [element] : [];
  for (const step of route.split("/")) current = current.flatMap((e) => children(e, step));
  return current;
}

/** Every descendant with this local name, in document order. */
export function descendants(element: XmlElement | undefined, name: string): XmlElement[] {
  if (!element) return [];
  return element.children.flatMap((c) => [...(localName(c) === name ? [c] : []), ...descendants(c, name)]);
}

/** All the text inside an element, whitespace collapsed. */
export function text(element: XmlElement | undefined): string {
  if (!element) return "";
  const collect = (e: XmlElement): string =>
    e.content.map((part) => (typeof part === "string" ? part : ` ${collect(part)} `)).join("");
  return collect(element).replace(/\s+/g, " ").trim();
}

/** The texts of the elements at a path, empty ones dropped. */
export function texts(element: XmlElement | undefined, route: string): string[] {
  return path(element, route)
    .map(text)
    .filter((t) => t !== "");
}

export function firstText(element: XmlElement | undefined, route: string): string | undefined {
  return texts(element, route)[0];
}

/** Paragraphs of a text block (EML's para/section, or the element's own text). */
export function paragraphs(element: XmlElement | undefined): string[] {
  if (!element) return [];
  const paras = descendants(element, "para").map(text).filter(Boolean);
  return paras.length ? paras : [text(element)].filter(Boolean);
}
