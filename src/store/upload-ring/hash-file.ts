/**
 * Hashing the first bytes of a file through the hasher ring: each slot is read from the file straight into shared
 * memory (no copy on this thread) and hashed by the hasher threads while the next slots are read.
 */
import { close, open, read } from "node:fs";
import { promisify } from "node:util";
import type { HasherPool, HashJob } from "./hasher-pool.ts";

const openAsync = promisify(open);
const readAsync = promisify(read);
const closeAsync = promisify(close);

/** Pass the first `length` bytes of `file` to `job`, with at most `maxInFlight` slots at once. */
export async function hashFileThroughRing(
  pool: HasherPool,
  job: HashJob,
  file: string,
  length: number,
  maxInFlight: number,
): Promise<void> {
  const fd = await openAsync(file, "r");
  const inFlight = new Set<Promise<void>>();
  try {
    for (let at = 0; at < length; ) {
      while (inFlight.size >= maxInFlight) await Promise.race(inFlight);
      const slot = await pool.acquire();
      let filled: number;
      try {
        filled = await readInto(fd, slot.bytes, Math.min(pool.slotSize, length - at), at);
      } catch (error) {
        pool.release(slot);
        throw error;
      }
      const task = job.update(slot, filled).finally(() => pool.release(slot));
      inFlight.add(task);
      task.then(
        () => inFlight.delete(task),
        () => undefined,
      );
      at += filled;
    }
    await Promise.all(inFlight);
  } catch (error) {
    await Promise.allSettled(inFlight);
    throw error;
  } finally {
    await closeAsync(fd);
  }
}

/** Read exactly `length` bytes at `at` into `bytes`; a file that ends before is an error. */
async function readInto(fd: number, bytes: Uint8Array, length: number, at: number): Promise<number> {
  let done = 0;
  while (done < length) {
    const { bytesRead } = await readAsync(fd, bytes, done, length - done, at + done);
    if (bytesRead === 0)
      throw new Error(`The file ends at ${at + done} bytes, before the ${at + length} expected.`);
    done += bytesRead;
  }
  return done;
}
