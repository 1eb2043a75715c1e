/**
 * Numbers 0, 1, 2 ... found again by what each stands for (a PID, a field's value): an open-addressing table in
 * typed arrays, probed linearly from the hash, at most half full, each number's hash kept for growing. A Map of
 * millions of strings is millions of entries for V8's collector to mark at every full collection; these are two
 * arrays.
 */

/** A string's hash: FNV-1a over its code units. */
export function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h | 0;
}

export class HashSlots {
  /** Each number's hash, and the table: number + 1 at a slot (0 empty). */
  private hashes = new Int32Array(1024);
  private table = new Int32Array(2048);
  private length = 0;

  /** Bytes held (with the spare capacity). */
  get bytes(): number {
    return this.hashes.byteLength + this.table.byteLength;
  }

  /**
   * The number with this hash that `is(number, key)` accepts; when there is none, the empty slot a new one
   * would take, as -1 - slot.
   */
  find<K>(hash: number, key: K, is: (n: number, key: K) => boolean): number {
    const mask = this.table.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const at = this.table[slot] as number;
      if (at === 0) return -1 - slot;
      if (this.hashes[at - 1] === hash && is(at - 1, key)) return at - 1;
    }
  }

  /** Places the next number (0, then 1, ...) at `missing` (what find returned for it); returns the number. */
  add(hash: number, missing: number): number {
    const n = this.length;
    if (n + 1 > this.hashes.length) {
      const hashes = new Int32Array(this.hashes.length * 2);
      hashes.set(this.hashes);
      this.hashes = hashes;
    }
    this.hashes[n] = hash;
    this.table[-1 - missing] = n + 1;
    this.length = n + 1;
    if (this.length * 2 > this.table.length) this.rehash();
    return n;
  }

  /** A table twice the size, every number placed again by its kept hash. */
  private rehash(): void {
    const table = new Int32Array(this.table.length * 2);
    const mask = table.length - 1;
    for (let n = 0; n < this.length; n++) {
      let slot = (this.hashes[n] as number) & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = n + 1;
    }
    this.table = table;
  }
}
