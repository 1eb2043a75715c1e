/** DataONE checksum algorithm names and the node:crypto hashes behind them. */

export type HashKey = "md5" | "sha1" | "sha256" | "sha384" | "sha512";

/** Always computed for every upload. */
export const BASE_HASHES: readonly HashKey[] = ["md5", "sha1", "sha256"];

const NAMES: Record<string, HashKey> = {
  md5: "md5",
  sha1: "sha1",
  sha256: "sha256",
  sha384: "sha384",
  sha512: "sha512",
};

/**
 * The hash behind a DataONE algorithm name ("MD5", "SHA-1", "SHA-256", "SHA-384", "SHA-512"; in any case, with
 * or without the hyphen: "sha1", "SHA256", "Sha-512"), or undefined when unsupported.
 */
export function algorithmKey(name: string): HashKey | undefined {
  const spelled = /^\s*(md5|sha-?(?:1|256|384|512))\s*$/i.exec(name);
  if (!spelled) return undefined;
  const compact = (spelled[1] as string).toLowerCase().replace("-", "");
  return Object.hasOwn(NAMES, compact) ? NAMES[compact] : undefined;
}

/** The name in DataONE's checksum algorithm list for a spelling algorithmKey knows ("sha1" -> "SHA-1"). */
export function canonicalAlgorithm(name: string): string | undefined {
  const key = algorithmKey(name);
  return key ? DATAONE_NAME[key] : undefined;
}

/** The DataONE spelling of a hash, as recorded in `Digests.extra.algorithm`. */
export const DATAONE_NAME: Record<HashKey, string> = {
  md5: "MD5",
  sha1: "SHA-1",
  sha256: "SHA-256",
  sha384: "SHA-384",
  sha512: "SHA-512",
};

/** The error stage() throws (before reading) for an algorithm it cannot compute. */
export function unsupportedAlgorithm(name: string): Error & { code: string } {
  const error = new Error(
    `Checksum algorithm "${name}" is not supported; supported: MD5, SHA-1, SHA-256, SHA-384, SHA-512.`,
  ) as Error & { code: string };
  error.code = "UNSUPPORTED_ALGORITHM";
  return error;
}

/** Relative CPU cost per byte (measured: MD5 ~730, SHA-1 ~1800, SHA-256 ~1700, SHA-384/512 ~800 MiB/s). */
const COST: Record<HashKey, number> = { md5: 1.4, sha1: 0.55, sha256: 0.6, sha384: 1.25, sha512: 1.25 };

/** Spread hashes over `workers` threads (index = thread), costliest first onto the least loaded one. */
export function balance(hashes: readonly HashKey[], workers: number): HashKey[][] {
  const groups = Array.from({ length: workers }, () => ({ load: 0, hashes: [] as HashKey[] }));
  for (const hash of [...hashes].sort((a, b) => COST[b] - COST[a])) {
    const lightest = groups.reduce((best, g) => (g.load < best.load ? g : best));
    lightest.hashes.push(hash);
    lightest.load += COST[hash];
  }
  return groups.map((g) => g.hashes);
}
