/**
 * An object's science-metadata fields from its bytes: pure (no database, no store), so that indexing in bulk can
 * run it in a worker thread (rebuild/extract-worker.ts) as well as in the writing one (indexer.ts).
 */

import { extractorFor, MAX_METADATA_BYTES } from "../extract/index.ts";
import type { SearchDocument } from "./document.ts";

/** Science documents remember their format under the schema's formatId field (overridden by sysmeta's). */
export const FORMAT_MARK = "formatId";

/** Whether the index reads the bytes of an object of this format and size (else: system metadata alone). */
export function readsBytes(formatId: string, size: number): boolean {
  return extractorFor(formatId) !== undefined && size <= MAX_METADATA_BYTES;
}

/** The science fields of `bytes` (undefined: not read), marked with their format. */
export function scienceOf(formatId: string, bytes: Buffer | undefined): SearchDocument {
  const none: SearchDocument = new Map([[FORMAT_MARK, [formatId]]]);
  const extract = extractorFor(formatId);
  if (!extract || bytes === undefined) return none;
  try {
    const science = extract(bytes);
    science.set(FORMAT_MARK, [formatId]);
    return science;
  } catch {
    // "Documents that cannot be parsed are indexed by their system metadata" (as the DataONE indexer does).
    return none;
  }
}
