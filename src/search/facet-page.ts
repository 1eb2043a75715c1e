/**
 * One facet field's counts and the page of them a request asks for: facet.prefix, facet.mincount, facet.sort
 * (count: most first, ties in index order; index: byte order, or number order for numeric fields), facet.offset
 * and facet.limit, each also per field as f.<field>.facet.* (read by parse-request.ts). Counts are kept as parallel arrays by value number
 * with the numbers listed in byte order of value, so a field of many values (a hundred thousand sites) pages
 * without an object per value.
 */
import { byteOrder } from "./byte-order.ts";
import { isNumeric } from "./fields.ts";
import type { FacetFieldRequest } from "./request.ts";

export interface ValueCounts {
  /** Each value, how many matching documents have it, and its number (numeric fields). */
  values: readonly string[];
  counts: ArrayLike<number>;
  nums: readonly (number | null)[];
  /** The value numbers in byte order of value. */
  order: ArrayLike<number>;
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
  const { values, counts: n, nums, order } = counts;
  let kept: Int32Array = new Int32Array(order.length);
  let length = 0;
  let most = 0;
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < order.length; i++) {
    const at = order[i] as number;
    const count = n[at] as number;
    if (count >= mincount && (prefix === "" || (values[at] as string).startsWith(prefix))) {
      kept[length++] = at;
      if (count > most) most = count;
      if (count < least) least = count;
    }
  }
  kept = kept.subarray(0, length);
  if (!byIndex && most !== least) kept = mostFirst(kept, n);
  else if (byIndex && isNumeric(spec.type)) {
    kept.sort(
      (a, b) => (nums[a] ?? 0) - (nums[b] ?? 0) || byteOrder(values[a] as string, values[b] as string),
    );
  }
  const end = limit < 0 ? length : Math.min(length, offset + limit);
  const out: (string | number)[] = new Array(Math.max(0, 2 * (end - offset)));
  for (let i = offset, o = 0; i < end; i++) {
    const at = kept[i] as number;
    out[o++] = values[at] as string;
    out[o++] = n[at] as number;
  }
  return out;
}

/** Positions by count, highest first, keeping their order among equal counts (one bucket per count). */
function mostFirst(positions: Int32Array, counts: ArrayLike<number>): Int32Array {
  const buckets = new Map<number, number[]>();
  for (const at of positions) {
    const n = counts[at] as number;
    const bucket = buckets.get(n);
    if (bucket) bucket.push(at);
    else buckets.set(n, [at]);
  }
  const out = new Int32Array(positions.length);
  let o = 0;
  for (const n of [...buckets.keys()].sort((a, b) => b - a))
    for (const at of buckets.get(n) ?? []) out[o++] = at;
  return out;
}
