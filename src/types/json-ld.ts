/**
 * Reading schema.org JSON-LD as plain JSON (no remote @context is fetched, no expansion): values as lists and
 * strings, and the Dataset node of a document.
 */

export type Json = unknown;
export type JsonObject = Record<string, Json>;

export const isObject = (v: Json): v is JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v);
/** A value as a list: absent is empty, an array is itself, anything else is one item. */
export const list = (v: Json): Json[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);
/** The non-empty strings of a value: plain strings, numbers, and `{"@value": ...}` unwrapped, trimmed. */
export const strings = (v: Json): string[] =>
  list(v)
    .flatMap((x) =>
      typeof x === "string"
        ? [x]
        : typeof x === "number"
          ? [String(x)]
          : isObject(x) && "@value" in x
            ? strings(x["@value"])
            : [],
    )
    .map((s) => s.trim())
    .filter(Boolean);
export const first = (v: Json): string | undefined => strings(v)[0];
/** The items of a value, an ordered `{"@list": [...]}` unwrapped. */
export const nodes = (v: Json): Json[] =>
  list(v).flatMap((x) => (isObject(x) && "@list" in x ? list(x["@list"]) : [x]));
/** A node's types by their local names ("Dataset" for "schema:Dataset" or "https://schema.org/Dataset"). */
export const typesOf = (node: JsonObject): string[] =>
  strings(node["@type"]).map((t) => t.replace(/^.*[/:#]/, ""));
/** Identifiers of a node: its @id, and `identifier`/`url`/`sameAs` as strings or PropertyValues. */
export const identifiersOf = (node: JsonObject): string[] =>
  [node["@id"], node.identifier, node.url, node.sameAs].flatMap((v) =>
    list(v).flatMap((x) =>
      isObject(x) ? [...strings(x["@id"]), ...strings(x.url), ...strings(x.value)] : strings(x),
    ),
  );

/** The Dataset node: the document itself, or the first Dataset of its `@graph` (or of a top-level array). */
export function findDataset(data: Json): JsonObject | undefined {
  for (const node of list(isObject(data) && "@graph" in data ? data["@graph"] : data)) {
    if (isObject(node) && typesOf(node).includes("Dataset")) return node;
  }
  return undefined;
}

/** The Dataset of a JSON-LD document's bytes; undefined when they are not JSON or hold no Dataset. */
export function readDataset(bytes: Buffer): JsonObject | undefined {
  try {
    return findDataset(JSON.parse(bytes.toString("utf8")));
  } catch {
    return undefined;
  }
}

/** Whether a metadata document is JSON-LD: by its format (`...;ld+json`, schema.org) or its first character. */
export function isJsonLd(bytes: Buffer, formatId: string): boolean {
  if (/ld\+json|schema\.org/i.test(formatId)) return true;
  const start = bytes
    .subarray(0, 64)
    .toString("utf8")
    .replace(/^\uFEFF/, "")
    .trimStart();
  return start.startsWith("{") || start.startsWith("[");
}
