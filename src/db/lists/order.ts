/**
 * Identifier order as both databases see it: byte-wise over UTF-8 (SQLite's BINARY collation, PostgreSQL's
 * "C"), which is code-point order. JavaScript's `<` compares UTF-16 code units and disagrees for characters
 * above U+FFFF against U+E000-U+FFFF, so the pager compares with these instead.
 */

/** Code-point (= UTF-8 byte) order of two strings: negative, zero or positive. */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (D800-DFFF) stand for code points above FFFF: move them above E000-FFFF.
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** Sort keys of the lists: a date (milliseconds) then a tie-breaker (identifier or entry id). */
export type ListKey = readonly [number, string | number];

export function compareKeys(a: ListKey, b: ListKey): number {
  if (a[0] !== b[0]) return a[0] - b[0];
  const [x, y] = [a[1], b[1]];
  if (typeof x === "number" && typeof y === "number") return x - y;
  return compareCodePoints(String(x), String(y));
}

/**
 * The smallest string above every string that starts with `prefix` (code-point order), or undefined when there is
 * none (the prefix is empty or all U+10FFFF). `prefix <= s < bound` is then exactly "s starts with prefix", and
 * an index range, with no LIKE wildcards to escape.
 */
export function prefixUpperBound(prefix: string): string | undefined {
  const points = Array.from(prefix, (c) => c.codePointAt(0) as number);
  while (points.length > 0) {
    const last = points.pop() as number;
    if (last < 0x10ffff) {
      points.push(last === 0xd7ff ? 0xe000 : last + 1);
      return String.fromCodePoint(...points);
    }
  }
  return undefined;
}
