/**
 * What V8 (64-bit, no pointer compression, as Node ships) takes for the few JS values the memory keeps beside
 * its typed arrays: the columns' distinct values. Used by the memory's count of its bytes (the
 * budget), so that it counts strings as the heap holds them, not by their characters alone.
 */

/** A slot of an array (a pointer), with the spare capacity arrays grow by (about a quarter, on average). */
export const ARRAY_SLOT = 10;
/** A number that is not a small integer (a date's milliseconds, a fraction), boxed: map word and the double. */
export const HEAP_NUMBER = 16;

/** Characters outside Latin-1: a string holding one takes two bytes a character. */
const TWO_BYTE = /[\u0100-\uffff]/;

/** Bytes of a string on the heap: map, hash and length (16 bytes), then its characters, rounded to 8. */
export function stringBytes(value: string): number {
  const characters = TWO_BYTE.test(value) ? value.length * 2 : value.length;
  return 16 + Math.ceil(characters / 8) * 8;
}

/** Bytes a number takes beyond its slot: none for a small integer (31 bits), a box for any other. */
export function numberBytes(value: number | null): number {
  return value === null || (Number.isInteger(value) && Math.abs(value) < 2 ** 30) ? 0 : HEAP_NUMBER;
}
