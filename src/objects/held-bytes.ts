/**
 * Staging that keeps the bytes of a small upload in memory as they pass, so that what runs after the commit
 * (the search index extracting a metadata document or a resource map) has them without reading them back
 * from the store. Bounded: at most `limit` bytes are kept; an upload that grows beyond it keeps nothing (the
 * chunks already kept are let go) and is read from the store as before. The chunks are kept as they arrive
 * (no copy) and joined once, after the last one.
 */
import { Readable } from "node:stream";
import type { ObjectStore, StagedObject, StageOptions } from "../store/types.ts";

/** Stage `source`; with `limit` > 0, the staged object's `held` is its bytes when there are at most `limit`. */
export async function stageHolding(
  store: ObjectStore,
  source: Readable,
  options: StageOptions,
  limit: number,
): Promise<StagedObject> {
  if (limit <= 0) return store.stage(source, options);
  const kept = new KeptChunks(limit);
  const passing = Readable.from(kept.passing(source), { objectMode: false });
  // Staging that gives up (a failure, an abort) destroys what it reads: the upload itself goes with it.
  passing.once("close", () => source.destroy());
  const staged = await store.stage(passing, options);
  const held = kept.bytes();
  return held?.length === staged.digests.size ? Object.assign(staged, { held }) : staged;
}

class KeptChunks {
  private chunks: Buffer[] | undefined = [];
  private size = 0;

  constructor(private readonly limit: number) {}

  /** Every chunk of `source`, in order, noted on the way. */
  async *passing(source: Readable): AsyncGenerator<Buffer> {
    for await (const chunk of source) {
      const bytes: Buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array | string);
      this.note(bytes);
      yield bytes;
    }
  }

  /** The bytes, when they stayed within the limit. */
  bytes(): Buffer | undefined {
    return this.chunks && Buffer.concat(this.chunks, this.size);
  }

  private note(bytes: Buffer): void {
    if (!this.chunks) return;
    this.size += bytes.length;
    if (this.size > this.limit) this.chunks = undefined;
    else this.chunks.push(bytes);
  }
}
