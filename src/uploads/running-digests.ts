/**
 * The digests of a resumable upload, kept running across its PATCH requests: every byte is hashed once, as it
 * arrives (MD5, SHA-1, SHA-256 as every upload records, and the algorithm the upload's metadata names when it is
 * another). node:crypto's hashes run at native speed but cannot be saved; the running state therefore lives in
 * memory, and only a node restart in the middle of an upload makes it read the bytes it already has once more
 * (docs/decisions.md, "Resumable uploads").
 */
import { createHash, type Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { algorithmKey, BASE_HASHES, DATAONE_NAME, type HashKey } from "../store/algorithms.ts";
import type { Digests } from "../types/stored-object.ts";

export class RunningDigests {
  private readonly hashes = new Map<HashKey, Hash>();
  private readonly extra: HashKey | undefined;
  /** Bytes hashed so far. */
  offset = 0;

  constructor(extraAlgorithm: string | undefined) {
    const extra = extraAlgorithm === undefined ? undefined : algorithmKey(extraAlgorithm);
    this.extra = extra && !BASE_HASHES.includes(extra) ? extra : undefined;
    for (const key of this.extra ? [...BASE_HASHES, this.extra] : BASE_HASHES) {
      this.hashes.set(key, createHash(key));
    }
  }

  /** Digests of the first `length` bytes of `file` (after a restart: the state that was lost with the process). */
  static async ofFile(
    file: string,
    length: number,
    extraAlgorithm: string | undefined,
  ): Promise<RunningDigests> {
    const running = new RunningDigests(extraAlgorithm);
    if (length === 0) return running;
    for await (const chunk of createReadStream(file, { start: 0, end: length - 1, highWaterMark: 1 << 20 })) {
      running.update(chunk as Buffer);
    }
    return running;
  }

  update(bytes: Buffer): void {
    for (const hash of this.hashes.values()) hash.update(bytes);
    this.offset += bytes.length;
  }

  /** The digests so far; the running state is kept (copied, not finished). */
  current(): Digests {
    const hex = (key: HashKey) => this.hashes.get(key)?.copy().digest("hex") ?? "";
    const digests: Digests = { size: this.offset, md5: hex("md5"), sha1: hex("sha1"), sha256: hex("sha256") };
    if (this.extra) digests.extra = { algorithm: DATAONE_NAME[this.extra], value: hex(this.extra) };
    return digests;
  }
}
