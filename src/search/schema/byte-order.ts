/**
 * Byte-wise order of the UTF-8 forms (as SQLite's BINARY and PostgreSQL's "C" collation compare), which is
 * code point order. UTF-16 code units order the same way except where a surrogate (U+D800-DFFF, half of a code
 * point above U+FFFF) meets a unit of U+E000-FFFF: the surrogate's code point is the greater.
 */
export function byteOrder(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return x >= 0xd800 && y >= 0xd800 ? codePointRank(x) - codePointRank(y) : x - y;
  }
  return a.length - b.length;
}

/** Surrogates rank above U+E000-FFFF. */
const codePointRank = (unit: number) => (unit >= 0xe000 ? unit - 0x800 : unit + 0x2000);
