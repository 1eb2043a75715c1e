/**
 * One facet field's counts and the page of them a request asks for: facet.prefix, facet.mincount, facet.sort
 * (count: most first, ties in index order; index: byte order, or number order for numeric fields), facet.offset
 * and facet.limit, each also per field as f.<field>.facet.* (read by parse-request.ts). Counts are kept as parallel arrays by value number
 * with the numbers listed in byte order of value, so a field of many values (a hundred thousand sites) pages
 * without an object per value.
 */

import type { FacetFieldRequest } from "../query/request.ts";
import { byteOrder } from "../schema/byte-order.ts";
import { isNumeric } from "../schema/fields.ts";
import { ScratchInts } from "./scratch-ints.ts";

/** The values a page keeps and their counts, then the same by count (read before pageOf returns). */
const keptScratch = new ScratchInts();
const keptCountsScratch = new ScratchInts();
const sortedScratch = new ScratchInts();
const sortedCountsScratch = new ScratchInts();
const startsScratch = new ScratchInts();

export interface ValueCounts {
  /** Each value and its number (numeric fields), by value number. */
  values: readonly string[];
  nums: readonly (number | null)[];
  /** The value numbers in byte order of value: all, or at least every one with a count above zero. */
  order: ArrayLike<number>;
  /** How many matching documents have each value: by value number, or (`aligned`) beside `order`. */
  counts: ArrayLike<number>;
  aligned?: boolean;
}

/** Counts in any order. */
export function valueCountsOf(list: { value: string; n: number; num: number | null }[]): ValueCounts {
  list.sort((a, b) => byteOrder(a.value, b.value));
  return {
    values: list.map((c) => c.value),
    counts: list.map((c) => c.n),
    nums: list.map((c) => c.num),
    order: list.map((_, i) => i),
  };
}

/** The page of `counts` the facet field's settings ask for, as Solr's flat value, count, value, ... list. */
export function pageOf(facet: FacetFieldRequest, counts: ValueCounts): (string | number)[] {
  const { spec, limit, offset, mincount, prefix } = facet;
  const byIndex = facet.sort === "index";
  const { values, counts: n, nums, order, aligned } = counts;
  // The values kept and their counts side by side: the sort and the list read them in order, not by value.
  let kept = keptScratch.take(order.length);
  let keptCounts = keptCountsScratch.take(order.length);
  let length = 0;
  let most = 0;
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < order.length; i++) {
    const at = order[i] as number;
    const count = n[aligned ? i : at] as number;
    if (count >= mincount && (prefix === "" || (values[at] as string).startsWith(prefix))) {
      kept[length] = at;
      keptCounts[length++] = count;
      if (count > most) most = count;
      if (count < least) least = count;
    }
  }
  kept = kept.subarray(0, length);
  keptCounts = keptCounts.subarray(0, length);
  if (!byIndex && length > 1 && most !== least) [kept, keptCounts] = mostFirst(kept, keptCounts, most, least);
  else if (byIndex && isNumeric(spec.type)) [kept, keptCounts] = byNumber(kept, keptCounts, values, nums);
  const end = limit < 0 ? length : Math.min(length, offset + limit);
  const out: (string | number)[] = new Array(Math.max(0, 2 * (end - offset)));
  for (let i = offset, o = 0; i < end; i++) {
    out[o++] = values[kept[i] as number] as string;
    out[o++] = keptCounts[i] as number;
  }
  return out;
}

/** Values (with their counts) in number order, ties in byte order. */
function byNumber(
  kept: Int32Array,
  counts: Int32Array,
  values: readonly string[],
  nums: readonly (number | null)[],
): [Int32Array, Int32Array] {
  const places = Array.from(kept.keys());
  places.sort((x, y) => {
    const a = kept[x] as number;
    const b = kept[y] as number;
    return (nums[a] ?? 0) - (nums[b] ?? 0) || byteOrder(values[a] as string, values[b] as string);
  });
  return [
    Int32Array.from(places, (p) => kept[p] as number),
    Int32Array.from(places, (p) => counts[p] as number),
  ];
}

/**
 * Values (with their counts) by count, highest first, keeping their order among equal counts: a counting sort
 * when the counts span few numbers (as they do: at most the matching documents), else a stable sort.
 */
function mostFirst(
  positions: Int32Array,
  counts: Int32Array,
  most: number,
  least: number,
): [Int32Array, Int32Array] {
  const span = most - least + 1;
  const out = sortedScratch.take(positions.length).subarray(0, positions.length);
  const outCounts = sortedCountsScratch.take(positions.length).subarray(0, positions.length);
  if (span > positions.length * 4 + 1024) {
    const byCount = Array.from(positions.keys()).sort(
      (a, b) => (counts[b] as number) - (counts[a] as number),
    );
    byCount.forEach((i, o) => {
      out[o] = positions[i] as number;
      outCounts[o] = counts[i] as number;
    });
    return [out, outCounts];
  }
  // Where each count's values start in the output (highest count first).
  const starts = startsScratch.take(span + 1).fill(0, 0, span + 1);
  for (let i = 0; i < counts.length; i++) {
    const slot = most - (counts[i] as number) + 1;
    starts[slot] = (starts[slot] as number) + 1;
  }
  for (let slot = 1; slot <= span; slot++)
    starts[slot] = (starts[slot] as number) + (starts[slot - 1] as number);
  for (let i = 0; i < positions.length; i++) {
    const count = counts[i] as number;
    const slot = most - count;
    const to = starts[slot] as number;
    out[to] = positions[i] as number;
    outCounts[to] = count;
    starts[slot] = to + 1;
  }
  return [out, outCounts];
}
