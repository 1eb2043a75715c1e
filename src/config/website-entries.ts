/**
 * The names at the top of the website folder (MetacatUI's index.html, loader.js, js/, css/, img/, ...), read once
 * at start-up: a request path whose first segment is one of them is a file of the folder, any other path is one of
 * MetacatUI's page paths (/data, /view/{pid}, ...), answered with index.html. The request layer builds no file path.
 */
import { readdirSync } from "node:fs";

export function websiteEntries(dir: string): ReadonlySet<string> {
  return new Set(readdirSync(dir).filter((name) => !name.startsWith(".")));
}
