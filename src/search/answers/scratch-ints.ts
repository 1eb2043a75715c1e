/**
 * An array of integers a step of every query works in, kept between queries: the lists of a query's matching
 * documents and of the values they have, tens of thousands long at millions of documents, made anew each time
 * cost their allocation, the first touch of their pages and the collector's runs (docs/performance.md). A step
 * takes the array, uses it and is done with it before it gives the event loop a turn; what it returns is then
 * read before the step runs again. Arrays longer than KEPT_LENGTH are made for one use and not kept.
 */

const KEPT_LENGTH = 1 << 20;

export class ScratchInts {
  /** Bytes held by every scratch array (counted in the engine's memory). */
  static held = 0;
  private kept = new Int32Array(0);

  /** An array of at least `length` elements; its contents are left from earlier use. */
  take(length: number): Int32Array {
    return length <= this.kept.length ? this.kept : this.larger(length);
  }

  /** `array` (taken from here) grown to at least `length` elements, its first `used` elements kept. */
  grow(array: Int32Array, used: number, length: number): Int32Array {
    const grown = this.larger(length);
    grown.set(array.subarray(0, used));
    return grown;
  }

  /** A new array of at least `length` elements, kept in place of the old when not too long. */
  private larger(length: number): Int32Array {
    if (length > KEPT_LENGTH) return new Int32Array(length);
    const array = new Int32Array(Math.min(KEPT_LENGTH, Math.max(length, this.kept.length * 2)));
    ScratchInts.held += array.byteLength - this.kept.byteLength;
    this.kept = array;
    return array;
  }
}
