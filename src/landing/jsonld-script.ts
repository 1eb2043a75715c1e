/**
 * JSON-LD embedded in a page: `<script type="application/ld+json">`, a data block the browser never runs (the
 * page's Content-Security-Policy allows no script anyway). "<", ">", "&" and U+2028/2029 are written as JSON
 * escapes, so no value from a document can close the element or start markup.
 */
import { Html } from "../views/html.ts";

const UNSAFE: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

export function jsonLdScript(data: unknown): Html {
  const json = JSON.stringify(data).replace(/[<>&\u2028\u2029]/g, (c) => UNSAFE[c] as string);
  return new Html(`<script type="application/ld+json">${json}</script>`);
}
