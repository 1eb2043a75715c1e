/**
 * The digests of a resumable upload, kept running across its PATCH requests: every byte is hashed once, as it
 * arrives, with SHA-256 (the content key) and the algorithm the upload's `checksumAlgorithm` metadata names, as
 * an inline upload is hashed with SHA-256 and its system metadata's algorithm (store/algorithms.ts,
 * `ingestHashes`). The hashes are a job of the hasher threads (store/hasher-pool.ts), open from the upload's
 * first byte to its create; their state lives in memory only, so a node restart in the middle of an upload makes
 * the next request read the bytes already received once more (docs/decisions.md, "Resumable uploads").
 */
import { digestsOf, type HashKey, ingestHashes } from "../store/algorithms.ts";
import { hashFileThroughRing } from "../store/upload-ring/hash-file.ts";
import type { HasherPool, HashJob } from "../store/upload-ring/hasher-pool.ts";
import { RingWriter, SLOTS_IN_FLIGHT } from "../store/upload-ring/writer.ts";
import type { Digests } from "../types/stored-object.ts";

export class RunningDigests {
  private finishing: Promise<Digests> | undefined;

  private constructor(
    private readonly pool: HasherPool,
    private readonly job: HashJob,
    private readonly declared: HashKey | undefined,
    /** Bytes hashed so far (and in the upload's file). */
    public offset: number,
  ) {}

  /**
   * Digests of the first `length` bytes of `file` (0 for a new upload; more after a restart: the state that was
   * lost with the process). `declared`: the hash of the upload's `checksumAlgorithm`, undefined when it names none.
   */
  static async ofFile(
    pool: HasherPool,
    file: string,
    length: number,
    declared: HashKey | undefined,
  ): Promise<RunningDigests> {
    const job = pool.open(ingestHashes(declared ?? "sha256"));
    try {
      await hashFileThroughRing(pool, job, file, length, SLOTS_IN_FLIGHT);
    } catch (error) {
      job.drop();
      throw error;
    }
    return new RunningDigests(pool, job, declared, length);
  }

  /** Whether the digests were taken: the upload is whole and no byte may be added. */
  get finished(): boolean {
    return this.finishing !== undefined;
  }

  /** A writer of the next bytes into `file` (open as `fd`) and these digests; `offset` follows what it wrote. */
  writer(fd: number, file: string): RingWriter {
    if (this.finishing) throw new Error("The upload's digests were taken: it takes no more bytes.");
    return new RingWriter({
      pool: this.pool,
      job: this.job,
      fd,
      file,
      position: this.offset,
      maxInFlight: SLOTS_IN_FLIGHT,
    });
  }

  /** The digests of the `offset` bytes (one not computed is "", as for an inline upload); the job ends. */
  digests(): Promise<Digests> {
    this.finishing ??= this.job.finish().then((values) => digestsOf(this.offset, values, this.declared));
    return this.finishing;
  }

  /** Forget the hashes (the upload is gone, or its file and these digests may differ after a failure). */
  drop(): void {
    this.job.drop();
  }
}
