/**
 * JSON written straight into UTF-8 bytes, the same bytes as `JSON.stringify` then UTF-8: for the facet lists of
 * the search page (78,000 sites and their counts at 2.5 million documents), which as a string cost a stringify,
 * the join of its pieces and an encoding (docs/performance.md). Escapes as JSON.stringify writes them: \" \\ \b
 * \f \n \r \t, other controls and lone surrogates as \u00XX with lowercase hex (ECMA-262, QuoteJSONString).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SHORT_ESCAPES: Record<number, number> = { 8: 0x62, 12: 0x66, 10: 0x6e, 13: 0x72, 9: 0x74 };
const HEX = "0123456789abcdef";
/** UTF-16 units written as one byte, unescaped: printable ASCII but the quote and the backslash. */
const PLAIN = new Uint8Array(0x10000);
PLAIN.fill(1, 0x20, 0x80);
PLAIN[QUOTE] = 0;
PLAIN[BACKSLASH] = 0;

/** The buffer writers write into, kept between answers (growing it as an answer is written cost as much again). */
let scratch: Buffer = Buffer.allocUnsafe(1 << 20);
let inUse = false;
/** A scratch grown past this by one large answer is let go afterwards. */
const KEPT_SCRATCH = 16 << 20;

/**
 * The bytes `write` writes, given to `take` while they are valid (by default, copied: nothing is shared with the
 * next answer).
 */
export function jsonBytes(
  write: (out: JsonBytes) => void,
  take: (written: Buffer) => Buffer = (written) => Buffer.from(written),
): Buffer {
  const shared = !inUse;
  inUse = true;
  try {
    const out = new JsonBytes(shared ? scratch : Buffer.allocUnsafe(1 << 16));
    write(out);
    if (shared) scratch = out.buffer.length > KEPT_SCRATCH ? Buffer.allocUnsafe(1 << 20) : out.buffer;
    return take(out.buffer.subarray(0, out.length));
  } finally {
    if (shared) inUse = false;
  }
}

export class JsonBytes {
  /** Bytes written so far, at the start of `buffer` (replaced by a larger one as needed). */
  length = 0;

  constructor(public buffer: Buffer) {}

  /** Text already in JSON form (a JSON.stringify result, punctuation), as UTF-8. */
  raw(text: string): this {
    this.reserve(text.length * 3);
    this.length += this.buffer.write(text, this.length);
    return this;
  }

  /** A string as a JSON string literal. */
  string(text: string): this {
    // Each UTF-16 unit takes at most 6 bytes (\u00XX, or a lone surrogate's \udXXX); a pair takes 4.
    this.reserve(text.length * 6 + 2);
    const out = this.buffer;
    let at = this.length;
    out[at++] = QUOTE;
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      if (PLAIN[unit] === 1) out[at++] = unit;
      else if (unit < 0x80) at = escapeAscii(out, at, unit);
      else if (unit < 0x800) {
        out[at++] = 0xc0 | (unit >> 6);
        out[at++] = 0x80 | (unit & 0x3f);
      } else if (unit < 0xd800 || unit > 0xdfff) {
        out[at++] = 0xe0 | (unit >> 12);
        out[at++] = 0x80 | ((unit >> 6) & 0x3f);
        out[at++] = 0x80 | (unit & 0x3f);
      } else {
        const low = text.charCodeAt(i + 1);
        if (unit <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) {
          const point = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
          out[at++] = 0xf0 | (point >> 18);
          out[at++] = 0x80 | ((point >> 12) & 0x3f);
          out[at++] = 0x80 | ((point >> 6) & 0x3f);
          out[at++] = 0x80 | (point & 0x3f);
          i++;
        } else at = unicodeEscape(out, at, unit);
      }
    }
    out[at++] = QUOTE;
    this.length = at;
    return this;
  }

  /** A flat list of strings and numbers (a facet field's value, count, value, count, ...). */
  flatList(items: readonly (string | number)[]): this {
    this.byte(0x5b);
    for (let i = 0; i < items.length; i++) {
      if (i > 0) this.byte(0x2c);
      const item = items[i] as string | number;
      if (typeof item === "string") this.string(item);
      else if (Number.isInteger(item) && item >= 0 && item <= 0x7fffffff) this.count(item);
      else this.raw(JSON.stringify(item));
    }
    this.byte(0x5d);
    return this;
  }

  /** A count (0 to 2^31 - 1) in decimal. */
  private count(n: number): void {
    this.reserve(10);
    let digits = 1;
    for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) digits++;
    const out = this.buffer;
    let at = this.length + digits;
    this.length = at;
    let rest = n;
    do {
      out[--at] = 0x30 + (rest % 10);
      rest = Math.floor(rest / 10);
    } while (rest > 0);
  }

  private byte(value: number): void {
    this.reserve(1);
    this.buffer[this.length++] = value;
  }

  private reserve(more: number): void {
    if (this.length + more <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + more));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}

/** The quote, the backslash or a control character, escaped. */
function escapeAscii(out: Buffer, at: number, unit: number): number {
  const short = unit === QUOTE || unit === BACKSLASH ? unit : SHORT_ESCAPES[unit];
  if (short === undefined) return unicodeEscape(out, at, unit);
  out[at++] = BACKSLASH;
  out[at++] = short;
  return at;
}

/** \uXXXX with lowercase hex. */
function unicodeEscape(out: Buffer, at: number, unit: number): number {
  out[at++] = BACKSLASH;
  out[at++] = 0x75;
  for (let shift = 12; shift >= 0; shift -= 4) out[at++] = HEX.charCodeAt((unit >> shift) & 0xf);
  return at;
}
