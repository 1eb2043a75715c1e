/** Text as UTF-8 bytes, for answers of megabytes (the search page). */

const encoder = new TextEncoder();

/**
 * `text` as UTF-8. TextEncoder writes megabytes several times faster than Buffer.from or a socket's own write
 * of a string (Node 20), and a reply of bytes is not measured again for its Content-Length (docs/performance.md).
 */
export function utf8Bytes(text: string): Buffer {
  const bytes = encoder.encode(text);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
