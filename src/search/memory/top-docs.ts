/**
 * The first documents of a result in sort order, from the fields' in-memory values. Sorted by one field, the page
 * is read off that column's kept order (doc-order.ts); otherwise a bounded heap keeps the best `count` seen, so a
 * page costs one pass over the matches. The order is sort.ts's: a document missing a
 * key's field comes after those having it in either direction, a multi-valued field counts by its least value,
 * and the identifier (byte order, ascending) breaks ties.
 */

import type { SortKey } from "../query/sort.ts";
import { byteOrder } from "../schema/byte-order.ts";
import type { Bitset } from "./bitset.ts";
import type { Column } from "./columns.ts";
import type { SearchMemory } from "./index.ts";

type KeyValues = Float64Array | (string | undefined)[];

/** The identifiers of the first `count` matching documents in the order of `keys`. */
export async function topDocs(
  memory: SearchMemory,
  matches: Bitset,
  keys: readonly SortKey[],
  count: number,
): Promise<string[]> {
  const only = keys[0];
  if (keys.length === 1 && only && only.field !== "id") {
    const walked = walkOrder(memory, await memory.column(only.field), matches, only, count);
    if (walked) return walked;
  }
  const columns: (Column | undefined)[] = [];
  for (const key of keys) columns.push(key.field === "id" ? undefined : await memory.column(key.field));
  const docs: number[] = [];
  matches.forEach((doc) => {
    docs.push(doc);
  });
  const numbers = memory.docs;
  // The id key compares the PIDs where the numbers hold them (no string made for every match).
  const values = keys.map((key, k) => keyValues(key, columns[k], docs));
  const compare = (a: number, b: number): number => {
    for (let k = 0; k < keys.length; k++) {
      const list = values[k];
      if (!list) {
        const order = numbers.comparePids(docs[a] as number, docs[b] as number);
        if (order !== 0) return (keys[k] as SortKey).descending ? -order : order;
        continue;
      }
      const x = list[a];
      const y = list[b];
      const xMissing = x === undefined || (typeof x === "number" && Number.isNaN(x));
      const yMissing = y === undefined || (typeof y === "number" && Number.isNaN(y));
      if (xMissing || yMissing) {
        if (xMissing !== yMissing) return xMissing ? 1 : -1;
        continue;
      }
      const order = typeof x === "number" ? x - (y as number) : byteOrder(x as string, y as string);
      if (order !== 0) return (keys[k] as SortKey).descending ? -order : order;
    }
    return numbers.comparePids(docs[a] as number, docs[b] as number);
  };
  const best = boundedBest(docs.length, count, compare);
  return best.map((i) => numbers.pidOf(docs[i] as number));
}

/**
 * One sort key: the column's order, skipping documents that don't match or were rewritten since it was made,
 * merged with the rewritten ones that match. Undefined when matching documents without the field would be
 * needed (they come last, by identifier; the caller's scan places them).
 */
function walkOrder(
  memory: SearchMemory,
  column: Column,
  matches: Bitset,
  key: SortKey,
  count: number,
): string[] | undefined {
  const { docs, keys } = column.order(key.numeric, key.descending);
  // The rewritten documents, kept sorted by the column until its patches change.
  const rewritten = column.rewrittenOrder(key.numeric, key.descending);
  const numbers = memory.docs;
  const sign = key.descending ? -1 : 1;
  const compare = (a: number, x: number | string, b: number, y: number | string) =>
    sign * (typeof x === "number" ? x - (y as number) : byteOrder(x, y as string)) ||
    numbers.comparePids(a, b);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (out.length < count) {
    while (i < docs.length && (column.isPatched(docs[i] as number) || !matches.has(docs[i] as number))) i++;
    while (j < rewritten.docs.length && !matches.has(rewritten.docs[j] as number)) j++;
    const hasNext = j < rewritten.docs.length;
    if (i >= docs.length && !hasNext) break;
    const doc = docs[i] as number;
    const next = rewritten.docs[j] as number;
    if (
      !hasNext ||
      (i < docs.length &&
        compare(doc, keys[i] as number | string, next, rewritten.keys[j] as number | string) <= 0)
    ) {
      out.push(numbers.pidOf(doc));
      i++;
    } else {
      out.push(numbers.pidOf(next));
      j++;
    }
  }
  return out.length < count && out.length < matches.count() ? undefined : out;
}

/** Each matching document's value for one key (NaN / undefined: it has none). */
function keyValues(key: SortKey, column: Column | undefined, docs: number[]): KeyValues | undefined {
  if (!column) return undefined;
  if (key.numeric) return Float64Array.from(docs, (doc) => column.leastNumber(doc));
  return docs.map((doc) => column.leastValue(doc));
}

/** Indexes 0..n-1 of the `count` least by `compare`, in order (a max-heap of the best so far). */
function boundedBest(n: number, count: number, compare: (a: number, b: number) => number): number[] {
  const heap: number[] = [];
  const worse = (a: number, b: number) => compare(a, b) > 0;
  const siftDown = (at: number) => {
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let top = at;
      if (left < heap.length && worse(heap[left] as number, heap[top] as number)) top = left;
      if (right < heap.length && worse(heap[right] as number, heap[top] as number)) top = right;
      if (top === at) return;
      [heap[at], heap[top]] = [heap[top] as number, heap[at] as number];
      at = top;
    }
  };
  for (let i = 0; i < n && count > 0; i++) {
    if (heap.length < count) {
      heap.push(i);
      for (let at = heap.length - 1; at > 0; ) {
        const parent = (at - 1) >> 1;
        if (!worse(heap[at] as number, heap[parent] as number)) break;
        [heap[at], heap[parent]] = [heap[parent] as number, heap[at] as number];
        at = parent;
      }
    } else if (compare(i, heap[0] as number) < 0) {
      heap[0] = i;
      siftDown(0);
    }
  }
  return heap.sort(compare);
}
