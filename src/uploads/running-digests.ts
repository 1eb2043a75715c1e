/**
 * The digests of a resumable upload, kept running across its PATCH requests: every byte is hashed once, as it
 * arrives, with SHA-256 (the content key) and the algorithm the upload's `checksumAlgorithm` metadata names, as
 * an inline upload is hashed with SHA-256 and its system metadata's algorithm (store/algorithms.ts,
 * `ingestHashes`). node:crypto's hashes run at native speed but cannot be saved; the running state therefore
 * lives in memory, and only a node restart in the middle of an upload makes it read the bytes it already has once
 * more (docs/decisions.md, "Resumable uploads").
 */
import { createHash, type Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { digestsOf, type HashKey, ingestHashes } from "../store/algorithms.ts";
import type { Digests } from "../types/stored-object.ts";

export class RunningDigests {
  private readonly hashes: [HashKey, Hash][];
  /** Bytes hashed so far. */
  offset = 0;

  /** `declared`: the hash of the upload's `checksumAlgorithm`, undefined when it names none. */
  constructor(private readonly declared: HashKey | undefined) {
    this.hashes = ingestHashes(declared ?? "sha256").map((key) => [key, createHash(key)]);
  }

  /** Digests of the first `length` bytes of `file` (after a restart: the state that was lost with the process). */
  static async ofFile(file: string, length: number, declared: HashKey | undefined): Promise<RunningDigests> {
    const running = new RunningDigests(declared);
    if (length === 0) return running;
    for await (const chunk of createReadStream(file, { start: 0, end: length - 1, highWaterMark: 1 << 20 })) {
      running.update(chunk as Buffer);
    }
    return running;
  }

  update(bytes: Buffer): void {
    for (const [, hash] of this.hashes) hash.update(bytes);
    this.offset += bytes.length;
  }

  /** The digests so far (one not computed is "", as for an inline upload); the running state is kept. */
  current(): Digests {
    const values = Object.fromEntries(this.hashes.map(([key, hash]) => [key, hash.copy().digest("hex")]));
    return digestsOf(this.offset, values, this.declared);
  }
}
