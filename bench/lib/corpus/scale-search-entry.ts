/** The index entry of synthetic document n of the search-scale load: system metadata and EML fields. */

import { loadFormatRegistry } from "../../../src/context/formats.ts";
import type { IndexEntry } from "../../../src/search/schema/index-rows.ts";
import { sysmetaFields } from "../../../src/search/schema/sysmeta-fields.ts";
import { sysmetaOf } from "../../sections/search/search.ts";
import { emlFields } from "./eml-fields.ts";

const formats = loadFormatRegistry();

/** `variant` changes the system metadata only (rewrites of the same document). */
export function scaleEntryOf(n: number, variant = 0): IndexEntry {
  return {
    pid: `bench.${n}.1`,
    sysmeta: sysmetaFields(sysmetaOf(n + variant, 4000), formats),
    science: emlFields(n),
  };
}
