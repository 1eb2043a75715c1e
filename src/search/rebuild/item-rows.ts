/** An object's index rows from what a rebuild sends for it (in a worker thread, or in the caller's). */
import { type IndexRows, indexRows } from "../schema/index-rows.ts";
import { scienceOf } from "../schema/science.ts";
import type { ExtractItem } from "./extract-messages.ts";

export function itemRows(item: ExtractItem): IndexRows {
  const { bytes } = item;
  const buffer = bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length) : undefined;
  return indexRows({ pid: item.pid, sysmeta: item.sysmeta, science: scienceOf(item.formatId, buffer) });
}
