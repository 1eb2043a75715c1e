/**
 * An object's bytes from the source, passed on up to its declared size and counted as they arrive. One byte more
 * stops the transfer at once with InvalidSystemMetadata (the stream fails, the connection closes), so a source
 * that sends more than it declared never gets more than the declared size onto this node's disk.
 */
import { Readable } from "node:stream";
import { InvalidSystemMetadata } from "../errors/exceptions.ts";

/** Read as the consumer reads (nothing flows before), the source's stream closed when this one is. */
export function cappedAt(
  bytes: Readable,
  size: number,
  pid: string,
  onBytes: (count: number) => void,
): Readable {
  async function* upToSize() {
    let received = 0;
    for await (const chunk of bytes) {
      received += (chunk as Buffer).length;
      if (received > size) {
        throw new InvalidSystemMetadata(
          `The source sent more bytes than the size its system metadata gives (${size}); the copy stopped there.`,
          { pid },
        );
      }
      onBytes((chunk as Buffer).length);
      yield chunk as Buffer;
    }
  }
  return Readable.from(upToSize(), { objectMode: false });
}
