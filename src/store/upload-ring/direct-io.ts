/**
 * Direct writes (O_DIRECT): full ring slots go from shared memory to the disk without a copy into the page
 * cache. Why: writing through the page cache and then fsync costs the kernel far more CPU (docs/decisions.md,
 * "Hot paths"). The kernel asks for memory, file offsets and lengths aligned to the device's blocks;
 * JavaScript cannot ask where a buffer lies, so the alignment of the ring is found by trying: a misaligned
 * direct write fails at once with EINVAL, before any I/O.
 */
import { closeSync, constants, openSync, rmSync, writeSync } from "node:fs";
import path from "node:path";

/** Alignment asked of offsets and lengths of direct writes (a page: enough for every block device). */
export const DIRECT_ALIGN = 4096;

/** open(2) flags for a direct writer on an existing file; undefined where the platform has no O_DIRECT. */
export const DIRECT_FLAGS =
  constants.O_DIRECT === undefined ? undefined : constants.O_WRONLY | constants.O_DIRECT;

/**
 * The offset into `buffer` (below DIRECT_ALIGN) from which direct writes to files in `dir` succeed, or undefined
 * when they never do (no O_DIRECT on this platform or filesystem, e.g. tmpfs). Writes one block to a probe file.
 */
export function directOffset(dir: string, buffer: SharedArrayBuffer): number | undefined {
  if (DIRECT_FLAGS === undefined || buffer.byteLength < 2 * DIRECT_ALIGN) return undefined;
  const probe = path.join(dir, `direct-probe-${process.pid}-${Date.now()}`);
  let fd: number;
  try {
    closeSync(openSync(probe, "wx"));
    fd = openSync(probe, DIRECT_FLAGS);
  } catch {
    rmSync(probe, { force: true });
    return undefined;
  }
  try {
    // Large buffers come from mmap behind a 16-byte allocator header: the page starts 16 bytes short of it.
    const candidates = [DIRECT_ALIGN - 16, 0];
    for (let at = 16; at < DIRECT_ALIGN; at += 16) if (at !== DIRECT_ALIGN - 16) candidates.push(at);
    for (const at of candidates) {
      try {
        writeSync(fd, new Uint8Array(buffer, at, DIRECT_ALIGN), 0, DIRECT_ALIGN, 0);
        return at;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EINVAL") return undefined;
      }
    }
    return undefined;
  } finally {
    closeSync(fd);
    rmSync(probe, { force: true });
  }
}
