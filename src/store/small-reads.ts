/**
 * Whole, synchronous reads of small objects, with the contents of recently read ones kept in memory. Content
 * never changes under a key, so a cached copy is always right; the store forgets a key when it removes the
 * bytes. Why: a read stream per request is the costliest way to serve a small get (docs/decisions.md, "Hot
 * paths").
 */
import { closeSync, openSync, readSync } from "node:fs";

/** Objects up to this size may be read whole and synchronously. */
export const SMALL_READ_LIMIT = 64 * 1024;

export class SmallReads {
  /** key -> bytes, least recently used first. */
  private readonly contents = new Map<string, Buffer>();
  private cachedBytes = 0;

  /** `budget`: total bytes kept in memory; `pathOf`: the file of a key. */
  constructor(
    private readonly budget: number,
    private readonly pathOf: (key: string) => string,
  ) {}

  /** The `size` bytes stored under `key`; shared, not to be modified. ENOENT when absent. */
  read(key: string, size: number): Buffer {
    if (!Number.isInteger(size) || size < 0 || size > SMALL_READ_LIMIT) {
      throw new RangeError(`Whole reads are for objects of at most ${SMALL_READ_LIMIT} bytes, not ${size}.`);
    }
    const cached = this.contents.get(key);
    if (cached && cached.length === size) {
      this.contents.delete(key);
      this.contents.set(key, cached);
      return cached;
    }
    const bytes = readWhole(key, this.pathOf(key), size);
    this.remember(key, bytes);
    return bytes;
  }

  /** Drop what is kept for `key` (its bytes are being removed). */
  forget(key: string): void {
    const cached = this.contents.get(key);
    if (!cached) return;
    this.contents.delete(key);
    this.cachedBytes -= cached.length;
  }

  clear(): void {
    this.contents.clear();
    this.cachedBytes = 0;
  }

  private remember(key: string, bytes: Buffer): void {
    if (bytes.length > this.budget) return;
    this.forget(key);
    this.contents.set(key, bytes);
    this.cachedBytes += bytes.length;
    for (const [oldest] of this.contents) {
      if (this.cachedBytes <= this.budget) break;
      this.forget(oldest);
    }
  }
}

function readWhole(key: string, file: string, size: number): Buffer {
  const fd = openSync(file, "r");
  try {
    const bytes = Buffer.allocUnsafeSlow(size);
    let done = 0;
    while (done < size) {
      const n = readSync(fd, bytes, done, size - done, done);
      if (n === 0) break;
      done += n;
    }
    if (done !== size) {
      throw Object.assign(new Error(`The stored bytes of ${key} are not ${size} bytes long.`), {
        code: "SIZE_MISMATCH",
      });
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}
