/**
 * Content hashes as clients name bytes: a hex digest (`checksum:<hex>` in a query) and hash URIs
 * (`hash://sha256/<hex>`, the form R's contentid and Preston use: "hash://{algorithm}/{hex}").
 */

/** The hash algorithms a hash URI may name, by the length of their hex digest. */
const HEX_LENGTH: Readonly<Record<string, number>> = {
  md5: 32,
  sha1: 40,
  sha256: 64,
  sha384: 96,
  sha512: 128,
};

/** A digest in lower-case hex, the case the node records its own digests in. */
export type HexDigest = string & { readonly hexDigest: unique symbol };

/** `text` as a hex digest (either case, at least 8 digits, an even number of them), or undefined. */
export function hexDigest(text: string): HexDigest | undefined {
  return /^(?:[0-9a-f]{2}){4,}$/i.test(text) ? (text.toLowerCase() as HexDigest) : undefined;
}

/** A hash URI's algorithm and digest. */
export interface HashUri {
  /** Lower case, as in the URI: md5, sha1, sha256, sha384, sha512. */
  algorithm: string;
  hex: HexDigest;
}

/**
 * `hash://{algorithm}/{hex}` read (algorithm and hex in either case; the hex as long as the algorithm's digest),
 * or undefined when `text` is no such URI.
 */
export function parseHashUri(text: string): HashUri | undefined {
  const match = /^hash:\/\/([a-z0-9]+)\/([0-9a-f]+)$/i.exec(text);
  if (!match) return undefined;
  const algorithm = (match[1] as string).toLowerCase();
  const hex = hexDigest(match[2] as string);
  if (!hex || !Object.hasOwn(HEX_LENGTH, algorithm) || HEX_LENGTH[algorithm] !== hex.length) return undefined;
  return { algorithm, hex };
}

/** Whether `text` starts as a hash URI does (a malformed one is still refused as one). */
export const looksLikeHashUri = (text: string): boolean => /^hash:\/\//i.test(text);
