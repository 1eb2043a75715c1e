/**
 * Reading an upload chunk by chunk without an async iterator: each chunk goes to `take` inside its 'data'
 * event, so that a sink which copies it at once (the hasher ring) lets it die young, and no promise is made
 * per chunk. When `take` must wait (no free slot), it returns a promise and the source is paused until it
 * settles. Why: an async iterator and a promise per chunk cost the main thread dearly on large uploads
 * (docs/decisions.md, "Hot paths").
 */
import type { Readable } from "node:stream";
import { finished } from "node:stream";

/** What `take` does with one chunk: nothing left to wait for (undefined), or a promise to wait on. */
export type ChunkSink = (chunk: Buffer) => Promise<void> | undefined;

/** Feed every chunk of `source` to `take`; resolves after the last one was taken, rejects on the first failure. */
export function pumpChunks(source: Readable, take: ChunkSink): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let failed = false;
    let waiting: Promise<void> | undefined;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      source.off("data", onData);
      reject(error);
    };
    const onData = (chunk: unknown) => {
      if (failed) return;
      let wait: Promise<void> | undefined;
      try {
        wait = take(toBuffer(chunk));
      } catch (error) {
        return fail(error);
      }
      if (!wait) return;
      source.pause();
      waiting = wait.then(() => {
        waiting = undefined;
        if (!failed) source.resume();
      });
      waiting.catch(fail);
    };
    source.on("data", onData);
    finished(source, { writable: false }, (error) => {
      if (error) return fail(error);
      (waiting ?? Promise.resolve()).then(() => {
        if (!failed) resolve();
      }, fail);
    });
  });
}

/** A stream chunk as a Buffer (no copy). */
export function toBuffer(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (typeof chunk === "string") return Buffer.from(chunk);
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new TypeError("An object upload must be a stream of bytes.");
}
