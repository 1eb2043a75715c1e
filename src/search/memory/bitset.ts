/** A set of document numbers as bits (Solr's DocSet): 32 documents a word, grown as numbers grow. */
export class Bitset {
  words: Uint32Array;

  constructor(capacity = 0) {
    this.words = new Uint32Array(Math.max(1, Math.ceil(capacity / 32)));
  }

  add(doc: number): void {
    const word = doc >>> 5;
    if (word >= this.words.length) this.grow(word + 1);
    this.words[word] = (this.words[word] as number) | (1 << (doc & 31));
  }

  delete(doc: number): void {
    const word = doc >>> 5;
    if (word < this.words.length) this.words[word] = (this.words[word] as number) & ~(1 << (doc & 31));
  }

  has(doc: number): boolean {
    const word = doc >>> 5;
    return word < this.words.length && ((this.words[word] as number) & (1 << (doc & 31))) !== 0;
  }

  /** The documents in all of these sets. */
  static intersection(sets: readonly Bitset[]): Bitset {
    const length = Math.min(...sets.map((s) => s.words.length));
    const out = new Bitset(length * 32);
    const words = out.words;
    words.set((sets[0] as Bitset).words.subarray(0, length));
    for (let s = 1; s < sets.length; s++) {
      const other = (sets[s] as Bitset).words;
      for (let i = 0; i < length; i++) words[i] = (words[i] as number) & (other[i] as number);
    }
    return out;
  }

  /** Keeps only the documents also in each of `others`, in place. */
  keepCommon(others: readonly Bitset[]): this {
    const words = this.words;
    for (const other of others) {
      const theirs = other.words;
      const length = Math.min(words.length, theirs.length);
      for (let i = 0; i < length; i++) words[i] = (words[i] as number) & (theirs[i] as number);
      words.fill(0, length);
    }
    return this;
  }

  /** Adds the documents of each of `others`, in place. */
  addAll(others: readonly Bitset[]): this {
    for (const other of others) {
      const theirs = other.words;
      if (theirs.length > this.words.length) this.grow(theirs.length);
      const words = this.words;
      for (let i = 0; i < theirs.length; i++) words[i] = (words[i] as number) | (theirs[i] as number);
    }
    return this;
  }

  /** Becomes the documents of `all` not in this set, in place. */
  invertWithin(all: Bitset): this {
    if (all.words.length > this.words.length) this.grow(all.words.length);
    const words = this.words;
    const theirs = all.words;
    for (let i = 0; i < theirs.length; i++) words[i] = (theirs[i] as number) & ~(words[i] as number);
    words.fill(0, theirs.length);
    return this;
  }

  count(): number {
    let n = 0;
    for (const word of this.words) {
      let w = word - ((word >>> 1) & 0x55555555);
      w = (w & 0x33333333) + ((w >>> 2) & 0x33333333);
      n += (((w + (w >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
    }
    return n;
  }

  /** Calls `visit` with each document number, in increasing order. */
  forEach(visit: (doc: number) => void): void {
    const words = this.words;
    for (let i = 0; i < words.length; i++) {
      let w = words[i] as number;
      while (w !== 0) {
        const low = w & -w;
        visit((i << 5) + 31 - Math.clz32(low));
        w ^= low;
      }
    }
  }

  private grow(minWords: number): void {
    const next = new Uint32Array(Math.max(minWords, this.words.length * 2));
    next.set(this.words);
    this.words = next;
  }
}
