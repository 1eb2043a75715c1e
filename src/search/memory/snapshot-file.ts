/**
 * The file a snapshot of the engine's memory is kept in: binary sections, then a JSON header describing them,
 * then the header's length and a SHA-256 of everything before it.
 *
 *   "D1NSNAP\n" | section 0 | section 1 | ... | header JSON (UTF-8) | header length (u32 LE) | SHA-256 (32 bytes)
 *
 * The header carries the format version and each section's length; typed arrays are little-endian. Written to
 * a temporary file beside it, flushed, then renamed over the old one: a crash while writing leaves the old file.
 * Read whole and checked (magic, hash, lengths, version) before anything in it is used.
 */
import { createHash } from "node:crypto";
import { open, readFile, rename, rm, stat } from "node:fs/promises";
import { endianness } from "node:os";

const MAGIC = Buffer.from("D1NSNAP\n");
const TAIL = 4 + 32;

export interface SnapshotHeader {
  version: number;
  /** Byte length of each section, in order. */
  lengths: number[];
}

export interface SnapshotContents<H> {
  header: H & SnapshotHeader;
  sections: Uint8Array[];
}

/** The bytes of a typed array (no copy). */
export function bytesOf(array: ArrayBufferView): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/**
 * Writes `header` (with the version and section lengths) after the sections, made one at a time by `sections`
 * (the event loop gets a turn between them), atomically replacing `file`.
 */
export async function writeSnapshotFile(
  file: string,
  header: object & { version: number },
  sections: Iterable<() => Uint8Array>,
): Promise<number> {
  if (endianness() !== "LE") throw new Error("snapshots are written on little-endian machines only");
  const temporary = `${file}.${process.pid}.tmp`;
  const handle = await open(temporary, "w");
  const hash = createHash("sha256");
  let written = 0;
  const put = async (bytes: Uint8Array) => {
    hash.update(bytes);
    await handle.write(bytes);
    written += bytes.byteLength;
  };
  try {
    await put(MAGIC);
    const lengths: number[] = [];
    for (const make of sections) {
      const bytes = make();
      lengths.push(bytes.byteLength);
      await put(bytes);
    }
    const json = Buffer.from(JSON.stringify({ ...header, lengths }));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(json.byteLength);
    await put(json);
    await put(length);
    await handle.write(hash.digest());
    await handle.sync();
    await handle.close();
    await rename(temporary, file);
    return written + 32;
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * The file's header and sections; undefined when there is no file; a reason (for one log line) when it is not
 * to be trusted: too large for `maxBytes`, torn, corrupt, another version.
 */
export async function readSnapshotFile<H>(
  file: string,
  version: number,
  maxBytes: number,
): Promise<SnapshotContents<H> | undefined | { ignored: string }> {
  const size = await stat(file).then(
    (s) => s.size,
    () => undefined,
  );
  if (size === undefined) return undefined;
  if (size > maxBytes) return { ignored: `${size} bytes, over the memory budget` };
  if (endianness() !== "LE") return { ignored: "written little-endian, read on a big-endian machine" };
  const bytes = await readFile(file);
  if (bytes.byteLength < MAGIC.byteLength + TAIL || !bytes.subarray(0, MAGIC.byteLength).equals(MAGIC)) {
    return { ignored: "not a snapshot, or cut short" };
  }
  const body = bytes.subarray(0, bytes.byteLength - 32);
  if (
    !createHash("sha256")
      .update(body)
      .digest()
      .equals(bytes.subarray(bytes.byteLength - 32))
  ) {
    return { ignored: "checksum differs (torn or corrupt)" };
  }
  const jsonLength = body.readUInt32LE(body.byteLength - 4);
  const jsonStart = body.byteLength - 4 - jsonLength;
  if (jsonStart < MAGIC.byteLength) return { ignored: "header length out of range" };
  let header: H & SnapshotHeader;
  try {
    header = JSON.parse(body.subarray(jsonStart, body.byteLength - 4).toString("utf8"));
  } catch {
    return { ignored: "header is not JSON" };
  }
  if (header.version !== version) return { ignored: `format version ${header.version}, not ${version}` };
  const sections: Uint8Array[] = [];
  let at = MAGIC.byteLength;
  for (const length of header.lengths) {
    sections.push(bytes.subarray(at, at + length));
    at += length;
  }
  if (at !== jsonStart) return { ignored: "section lengths do not add up" };
  return { header, sections };
}
