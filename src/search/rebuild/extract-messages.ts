/** What the writing thread and the extraction threads of a rebuild send each other (plain, cloneable data). */
import type { SearchDocument } from "../document.ts";
import type { IndexRows } from "../index-rows.ts";

/** One object to make rows of: its system-metadata (and package) fields and, when the index reads them, bytes. */
export interface ExtractItem {
  pid: string;
  formatId: string;
  sysmeta: SearchDocument;
  bytes?: Uint8Array;
}

export interface ExtractRequest {
  id: number;
  items: ExtractItem[];
}

export type ExtractReply = { id: number; rows: IndexRows[] } | { id: number; error: string };
