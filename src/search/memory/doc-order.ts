/**
 * A column's documents in sort order (by their least value, then identifier ascending), made once per packing
 * so a page sorted by one field reads the first matching documents off it instead of scanning every match.
 * Documents without a value are left out (they sort last, and top-docs.ts finds them by a scan).
 */
import { byteOrder } from "../byte-order.ts";
import type { Column } from "./columns.ts";

export interface DocOrder {
  /** Document numbers, in order. */
  docs: Int32Array;
  /** Each one's key (the least number, or the least value). */
  keys: Float64Array | string[];
}

export function docOrder(
  column: Column,
  packedDocs: number,
  numeric: boolean,
  descending: boolean,
): DocOrder {
  const sign = descending ? -1 : 1;
  const pids = column.docs.pids;
  const docs: number[] = [];
  if (numeric) {
    const keyOf = new Float64Array(packedDocs);
    for (let doc = 0; doc < packedDocs; doc++) {
      keyOf[doc] = column.leastNumber(doc);
      if (!Number.isNaN(keyOf[doc])) docs.push(doc);
    }
    docs.sort(
      (a, b) =>
        sign * ((keyOf[a] as number) - (keyOf[b] as number)) ||
        byteOrder(pids[a] as string, pids[b] as string),
    );
    return { docs: Int32Array.from(docs), keys: Float64Array.from(docs, (doc) => keyOf[doc] as number) };
  }
  const keyOf: (string | undefined)[] = new Array(packedDocs);
  for (let doc = 0; doc < packedDocs; doc++) {
    keyOf[doc] = column.leastValue(doc);
    if (keyOf[doc] !== undefined) docs.push(doc);
  }
  docs.sort(
    (a, b) =>
      sign * byteOrder(keyOf[a] as string, keyOf[b] as string) ||
      byteOrder(pids[a] as string, pids[b] as string),
  );
  return { docs: Int32Array.from(docs), keys: docs.map((doc) => keyOf[doc] as string) };
}
