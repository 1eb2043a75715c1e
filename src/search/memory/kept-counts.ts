/**
 * A column's value counts over the documents of one large result, kept up to date instead of counted again:
 * the search page's unfiltered query matches most documents, and the next such query (the same filters, or
 * the same after a few writes, or another caller's) differs from it in a few documents. Its counts are then
 * these, with the documents that entered or left the result added or taken off, never a pass over every
 * document that doesn't match. The column keeps them right across its own changes: a rewritten document in the
 * kept result has its old values taken off and its new ones added (columns.ts).
 */
import type { Bitset } from "./bitset.ts";

/** A document's ordinals in the column, as the column gives them now. */
export type OrdinalsOfDoc = (doc: number, visit: (ord: number) => void) => void;

export class KeptCounts {
  private constructor(
    /** The result's documents (a copy: results are not changed in place, but kept sets are). */
    private words: Uint32Array,
    /** How many of them have each value (indexed by ordinal), as the column stands. */
    private counts: Int32Array,
  ) {}

  /** Counts made over `matches`, kept from now on. */
  static of(matches: Bitset, counts: Int32Array): KeptCounts {
    return new KeptCounts(matches.words.slice(), counts.slice());
  }

  /**
   * How many documents differ between `matches` and the kept result, stopping once past `limit` (a bound
   * beyond which counting afresh is cheaper).
   */
  differences(matches: Bitset, limit: number): number {
    const a = matches.words;
    const b = this.words;
    const length = Math.max(a.length, b.length);
    let n = 0;
    for (let i = 0; i < length && n <= limit; i++) {
      const w = ((a[i] ?? 0) ^ (b[i] ?? 0)) >>> 0;
      if (w !== 0) n += popcount(w);
    }
    return n;
  }

  /** The counts over `matches`, the kept ones moved there (the documents entering added, those leaving taken). */
  follow(matches: Bitset, distinct: number, ordinalsOf: OrdinalsOfDoc): Int32Array {
    this.grow(distinct);
    const a = matches.words;
    if (this.words.length < a.length) {
      const grown = new Uint32Array(a.length);
      grown.set(this.words);
      this.words = grown;
    }
    const b = this.words;
    const counts = this.counts;
    const add = (ord: number) => {
      counts[ord] = (counts[ord] as number) + 1;
    };
    const take = (ord: number) => {
      counts[ord] = (counts[ord] as number) - 1;
    };
    for (let i = 0; i < b.length; i++) {
      const now = i < a.length ? (a[i] as number) : 0;
      let w = (now ^ (b[i] as number)) >>> 0;
      while (w !== 0) {
        const low = w & -w;
        const bit = 31 - Math.clz32(low);
        ordinalsOf((i << 5) + bit, (now & low) !== 0 ? add : take);
        w = (w ^ low) >>> 0;
      }
      b[i] = now;
    }
    return counts.slice(0, distinct);
  }

  /** Whether `doc` is in the kept result. */
  has(doc: number): boolean {
    const word = doc >>> 5;
    return word < this.words.length && ((this.words[word] as number) & (1 << (doc & 31))) !== 0;
  }

  /** A document of the kept result changed: `step` (1 or -1) for each of these ordinals. */
  adjust(ords: ArrayLike<number>, step: number, distinct: number): void {
    this.grow(distinct);
    for (let i = 0; i < ords.length; i++) {
      const ord = ords[i] as number;
      this.counts[ord] = (this.counts[ord] as number) + step;
    }
  }

  bytes(): number {
    return this.words.byteLength + this.counts.byteLength;
  }

  /** Room for `distinct` values (new values count zero). */
  private grow(distinct: number): void {
    if (this.counts.length >= distinct) return;
    const grown = new Int32Array(Math.max(distinct, this.counts.length * 2));
    grown.set(this.counts);
    this.counts = grown;
  }
}

function popcount(word: number): number {
  let w = word - ((word >>> 1) & 0x55555555);
  w = (w & 0x33333333) + ((w >>> 2) & 0x33333333);
  return (((w + (w >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
