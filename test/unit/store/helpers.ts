/** Shared pieces of the object store tests: a scratch store, byte sources, reference digests. */
import { createHash } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { createFsStore, type FsStoreOptions } from "../../../src/store/index.ts";
import type { ObjectStore } from "../../../src/store/types.ts";

export interface Scratch {
  root: string;
  store: ObjectStore;
  /** Names left in the store's tmp/ folder. */
  temps(): Promise<string[]>;
  dispose(): Promise<void>;
}

export async function scratchStore(options: FsStoreOptions = {}): Promise<Scratch> {
  const root = await mkdtemp(path.join(os.tmpdir(), "d1node-store-"));
  const store = await createFsStore(root, options);
  return {
    root,
    store,
    temps: () => readdir(path.join(root, "tmp")),
    async dispose() {
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** `data` as a stream of `chunk`-sized pieces. */
export function chunked(data: Buffer, chunk = 64 * 1024): Readable {
  const pieces: Buffer[] = [];
  for (let i = 0; i < data.length; i += chunk) pieces.push(data.subarray(i, i + chunk));
  return Readable.from(pieces);
}

export function hex(algorithm: string, data: Buffer): string {
  return createHash(algorithm).update(data).digest("hex");
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Pushes `before` bytes (64 KiB chunks), then calls `then` and stalls (never ends by itself). */
export function stallingSource(before: number, then: (source: Readable) => void): Readable {
  let sent = 0;
  const source = new Readable({
    read() {
      if (sent < before) {
        const n = Math.min(64 * 1024, before - sent);
        sent += n;
        this.push(Buffer.alloc(n, 7));
      } else if (sent === before) {
        sent++;
        setImmediate(() => then(source));
      }
    },
  });
  return source;
}

/** `count` MiB: the same random 1 MiB block with its index stamped in, produced on demand. */
export function generated(count: number, block: Buffer): Readable {
  let i = 0;
  return new Readable({
    highWaterMark: 1 << 20,
    read() {
      if (i === count) return void this.push(null);
      const chunk = Buffer.from(block);
      chunk.writeUInt32LE(i++, 0);
      this.push(chunk);
    },
  });
}
