/**
 * Navigating a parsed XML document by local names (namespace prefixes ignored), as the indexer's XPaths do.
 * Written as plain loops over module-level functions, no closures or arrays per step: a rebuild runs them over
 * every element of every document.
 */
import type { XmlElement } from "../../types/xml-parse.ts";

export const localName = (el: XmlElement): string => el.name.slice(el.name.indexOf(":") + 1);

/** Whether the element's local name is `name` (without slicing its name). */
function named(el: XmlElement, name: string): boolean {
  const full = el.name;
  const colon = full.indexOf(":");
  if (colon === -1) return full === name;
  return full.length - colon - 1 === name.length && full.endsWith(name);
}

/** Child elements with this local name ("*" for all). */
export function children(el: XmlElement | undefined, name: string): XmlElement[] {
  if (!el) return [];
  if (name === "*") return el.children;
  const out: XmlElement[] = [];
  for (const child of el.children) if (named(child, name)) out.push(child);
  return out;
}

/** Descendant elements with this local name, in document order (the element itself excluded). */
export function descendants(el: XmlElement | undefined, name: string): XmlElement[] {
  const out: XmlElement[] = [];
  if (el) collectDescendants(el, name, out);
  return out;
}

function collectDescendants(node: XmlElement, name: string, out: XmlElement[]): void {
  for (const child of node.children) {
    if (named(child, name)) out.push(child);
    collectDescendants(child, name, out);
  }
}

interface Path {
  deep: boolean;
  steps: string[];
}

/** Paths parsed once (the extractors use a few dozen fixed ones). */
const paths = new Map<string, Path>();

function parsedPath(path: string): Path {
  let parsed = paths.get(path);
  if (!parsed) {
    parsed = { deep: path.startsWith("//"), steps: path.replace(/^\/\//, "").split("/") };
    if (paths.size < 1000) paths.set(path, parsed);
  }
  return parsed;
}

/**
 * Elements at a path of local names: "a/b/c" steps through children; a leading "//" makes the first step
 * match descendants at any depth.
 */
export function select(el: XmlElement | undefined, path: string): XmlElement[] {
  if (!el) return [];
  const { deep, steps } = parsedPath(path);
  let current = [el];
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i] as string;
    const next: XmlElement[] = [];
    for (const node of current) {
      if (i === 0 && deep) collectDescendants(node, step, next);
      else if (step === "*") next.push(...node.children);
      else for (const child of node.children) if (named(child, step)) next.push(child);
    }
    current = next;
  }
  return current;
}

/** All character data inside an element, pieces separated by spaces. */
export function textOf(el: XmlElement | undefined): string {
  if (!el) return "";
  const parts: string[] = [];
  collectText(el, parts);
  return parts.join(" ").replace(/\s+/g, " ").trim();
}

function collectText(node: XmlElement, parts: string[]): void {
  for (const item of node.content) {
    if (typeof item === "string") parts.push(item);
    else collectText(item, parts);
  }
}

/** Text of every element at a path (blank ones dropped). */
export function texts(el: XmlElement | undefined, path: string): string[] {
  const out: string[] = [];
  for (const node of select(el, path)) {
    const text = textOf(node);
    if (text !== "") out.push(text);
  }
  return out;
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
