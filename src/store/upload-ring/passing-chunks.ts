/**
 * Minor garbage collections while large bodies pass through. Each body chunk Node's HTTP parser hands over is
 * a fresh 64 KiB buffer outside the JavaScript heap, dead once copied into the hasher ring; each 1 MiB chunk
 * a read stream hands to the response is one too, dead once written to the socket. V8 counts such memory
 * allocated since its last full collection against the old generation's limit, and frees it only when the
 * chunk's small heap object is collected: an upload that allocates little else reaches that limit every few
 * MiB, and each time V8 marks the whole heap. A minor collection (a scavenge of the young generation) frees
 * the dead chunks before that, for uploads and large gets alike (docs/decisions.md, "Hot paths"). Node
 * exposes one only with `--expose-gc` (bin/d1node.js passes it); without it, nothing is asked.
 */

/** Bytes passed through between two minor collections: well below the slack that starts full markings. */
export const YOUNG_COLLECTION_BYTES = 4 << 20;

const collect = globalThis.gc;
let sinceLast = 0;

/** Count `bytes` more staged or read; every YOUNG_COLLECTION_BYTES, one minor collection. */
export function noteTransientBytes(bytes: number): void {
  if (!collect) return;
  sinceLast += bytes;
  if (sinceLast < YOUNG_COLLECTION_BYTES) return;
  sinceLast = 0;
  collect({ type: "minor" });
}
