/**
 * The object format registry: the official DataONE list shipped in data/object-formats/, loaded once.
 * MNs check formatId against it and take media types and file extensions from it.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { FormatRegistry } from "../types/format-registry.ts";
import { parseObjectFormatList } from "../types/index.ts";

export type { FormatRegistry };

export const OFFICIAL_FORMAT_LIST = fileURLToPath(
  new URL("../../data/object-formats/objectFormatListV2.xml", import.meta.url),
);

export function loadFormatRegistry(file: string = OFFICIAL_FORMAT_LIST): FormatRegistry {
  const formats = parseObjectFormatList(readFileSync(file));
  const byId = new Map(formats.map((f) => [f.formatId, f]));
  return { get: (id) => byId.get(id), all: () => formats };
}
