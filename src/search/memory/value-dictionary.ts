/**
 * A column's distinct values (columns.ts): each gets an ordinal in the order first met, with its number for a
 * numeric field; the ordinals in byte order of their values are made when first asked, then kept in order as
 * values come, so facets page without sorting values.
 */
import { byteOrder } from "../schema/byte-order.ts";
import { HashSlots, hashOf } from "./hash-slots.ts";
import { ARRAY_SLOT, numberBytes, stringBytes } from "./heap-sizes.ts";

export class ValueDictionary {
  /** Distinct values, by ordinal, and their numbers (numeric fields). */
  readonly values: string[] = [];
  readonly nums: (number | null)[] = [];
  /** The ordinals by their values' hashes. */
  private readonly ordinals = new HashSlots();
  private readonly isValue = (ord: number, value: string) => this.values[ord] === value;
  private byValue: number[] | undefined;
  /** Each ordinal's place in `byValue` (made when asked, dropped when a value comes). */
  private ranks: Int32Array | undefined;
  /** Bytes of the distinct values: strings, their slots in values and nums, boxed numbers. */
  private valueBytes = 0;

  /** The ordinal of a value, undefined when never met. */
  find(value: string): number | undefined {
    const ord = this.ordinals.find(hashOf(value), value, this.isValue);
    return ord >= 0 ? ord : undefined;
  }

  /** The ordinal of a value, a new one for a value not met before. */
  ordinalOf(value: string, num: number | string | null): number {
    const hash = hashOf(value);
    const found = this.ordinals.find(hash, value, this.isValue);
    if (found >= 0) return found;
    const ord = this.ordinals.add(hash, found);
    const number = num === null ? null : Number(num);
    this.values.push(value);
    this.nums.push(number);
    this.valueBytes += stringBytes(value) + 2 * ARRAY_SLOT + numberBytes(number);
    if (this.byValue) this.byValue.splice(this.insertionPoint(value), 0, ord);
    this.ranks = undefined;
    return ord;
  }

  /** The ordinals, in byte order of their values. */
  order(): readonly number[] {
    if (!this.byValue) {
      this.byValue = this.values.map((_, ord) => ord);
      this.byValue.sort((a, b) => byteOrder(this.values[a] as string, this.values[b] as string));
    }
    return this.byValue;
  }

  /**
   * These ordinals (each once) in byte order of their values, written at the start of `into` (at least as long):
   * a sort of their places in that order.
   */
  inOrder(ords: Int32Array, into: Int32Array): Int32Array {
    const order = this.order();
    if (!this.ranks) {
      this.ranks = new Int32Array(order.length);
      for (let at = 0; at < order.length; at++) this.ranks[order[at] as number] = at;
    }
    const ranks = this.ranks;
    const out = into.subarray(0, ords.length);
    for (let i = 0; i < ords.length; i++) out[i] = ranks[ords[i] as number] as number;
    out.sort();
    for (let i = 0; i < out.length; i++) out[i] = order[out[i] as number] as number;
    return out;
  }

  /** Bytes held: the values, their table and, once made, their byte order (small integers in an array) and ranks. */
  bytes(): number {
    const order = this.byValue ? this.byValue.length * ARRAY_SLOT : 0;
    return this.valueBytes + this.ordinals.bytes + order + (this.ranks?.byteLength ?? 0);
  }

  /** Where `value` goes in the byte order of values. */
  private insertionPoint(value: string): number {
    const order = this.byValue as number[];
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (byteOrder(this.values[order[mid] as number] as string, value) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
