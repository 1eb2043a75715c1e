/** DataONE checksum algorithm names and the node:crypto hashes behind them. */
import type { Digests } from "../types/stored-object.ts";

export type HashKey = "md5" | "sha1" | "sha256" | "sha384" | "sha512";

/** The digests a `Digests` value has fields for; other algorithms go into `Digests.extra`. */
export const BASE_HASHES: readonly HashKey[] = ["md5", "sha1", "sha256"];

/**
 * The hashes computed while an upload arrives. SHA-256 always (the content key); with the system metadata's
 * algorithm known (`declared`), that one and no more: the other digests are computed from the stored bytes
 * when first asked for (getChecksum, packages) and recorded then. Without it (the system metadata part comes
 * after the object part), MD5, SHA-1 and SHA-256, so that the common algorithms need no second read. Why: MD5
 * alone costs more CPU than SHA-1 and SHA-256 together (docs/decisions.md, "Hot paths").
 */
export function ingestHashes(declared: HashKey | undefined): HashKey[] {
  if (!declared) return [...BASE_HASHES];
  return declared === "sha256" ? ["sha256"] : ["sha256", declared];
}

/**
 * Digests from the hex values of `ingestHashes(declared)`; a base digest not computed is "" (not yet known).
 * `declared` beyond the base three is recorded as `extra`.
 */
export function digestsOf(
  size: number,
  values: Partial<Record<HashKey, string>>,
  declared: HashKey | undefined,
): Digests {
  const digests: Digests = {
    size,
    md5: values.md5 ?? "",
    sha1: values.sha1 ?? "",
    sha256: values.sha256 ?? "",
  };
  if (declared && !BASE_HASHES.includes(declared)) {
    digests.extra = { algorithm: DATAONE_NAME[declared], value: values[declared] ?? "" };
  }
  return digests;
}

/** Record `value` as the `key` digest of `digests` (a base field, else `extra`). */
export function setDigest(digests: Digests, key: HashKey, value: string): void {
  if (key === "md5" || key === "sha1" || key === "sha256") digests[key] = value;
  else digests.extra = { algorithm: DATAONE_NAME[key], value };
}

/**
 * The recorded hex digest of `key` in `digests`, or undefined when none is recorded: a base digest not yet
 * computed ("") or an algorithm beyond the base three other than `extra`'s.
 */
export function recordedDigest(digests: Digests, key: HashKey): string | undefined {
  if (key === "md5" || key === "sha1" || key === "sha256") return digests[key] || undefined;
  return digests.extra && algorithmKey(digests.extra.algorithm) === key ? digests.extra.value : undefined;
}

/** The recorded hex digest for a DataONE algorithm name (`MD5`, `SHA-256`, ...), or undefined as above. */
export function digestForAlgorithm(digests: Digests, algorithm: string): string | undefined {
  const key = algorithmKey(algorithm);
  return key ? recordedDigest(digests, key) : undefined;
}

/** The hash of a DataONE algorithm name; throws UNSUPPORTED_ALGORITHM for one it cannot compute. */
export function declaredHash(algorithm: string | undefined): HashKey | undefined {
  if (algorithm === undefined) return undefined;
  const key = algorithmKey(algorithm);
  if (!key) throw unsupportedAlgorithm(algorithm);
  return key;
}

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

/** Relative CPU cost per byte of each algorithm (docs/decisions.md, "Hot paths"). */
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
