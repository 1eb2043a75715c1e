/** Navigating a parsed XML document by local names (namespace prefixes ignored), as the indexer's XPaths do. */
import type { XmlElement } from "../../types/xml-parse.ts";

export const localName = (el: XmlElement): string => el.name.slice(el.name.indexOf(":") + 1);

/** Child elements with this local name ("*" for all). */
export function children(el: XmlElement | undefined, name: string): XmlElement[] {
  if (!el) return [];
  return name === "*" ? el.children : el.children.filter((c) => localName(c) === name);
}

/** Descendant elements with this local name, in document order (the element itself excluded). */
export function descendants(el: XmlElement | undefined, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  const walk = (node: XmlElement) => {
    for (const child of node.children) {
      if (localName(child) === name) out.push(child);
      walk(child);
    }
  };
  if (el) walk(el);
  return out;
}

/**
 * Elements at a path of local names: "a/b/c" steps through children; a leading "//" makes the first step
 * match descendants at any depth.
 */
export function select(el: XmlElement | undefined, path: string): XmlElement[] {
  const deep = path.startsWith("//");
  const steps = path.replace(/^\/\//, "").split("/");
  let current = el ? [el] : [];
  steps.forEach((step, i) => {
    current = current.flatMap((node) => (i === 0 && deep ? descendants(node, step) : children(node, step)));
  });
  return current;
}

/** All character data inside an element, pieces separated by spaces. */
export function textOf(el: XmlElement | undefined): string {
  if (!el) return "";
  const parts: string[] = [];
  const walk = (node: XmlElement) => {
    for (const item of node.content) {
      if (typeof item === "string") parts.push(item);
      else walk(item);
    }
  };
  walk(el);
  return parts.join(" ").replace(/\s+/g, " ").trim();
}

/** Text of every element at a path (blank ones dropped). */
export function texts(el: XmlElement | undefined, path: string): string[] {
  return select(el, path)
    .map(textOf)
    .filter((t) => t !== "");
}

/** Text of the first element at a path. */
export function firstText(el: XmlElement | undefined, path: string): string | undefined {
  return texts(el, path)[0];
}

export function attribute(el: XmlElement | undefined, name: string): string | undefined {
  if (!el) return undefined;
  for (const [key, value] of el.attributes) if (key === name || key.endsWith(`:${name}`)) return value;
  return undefined;
}
