/**
 * The file a snapshot of the engine's memory is kept in: binary sections, then a JSON header describing them,
 * then the header's length and a SHA-256 of everything before it.
 *
 *   "D1NSNAP\n" | section 0 | section 1 | ... | header JSON (UTF-8) | header length (u32 LE) | SHA-256 (32 bytes)
 *
 * The header carries the format version and each section's length; typed arrays are little-endian. Written to
 * a temporary file beside it, flushed, then renamed over the old one: a crash while writing leaves the old file.
 * Checked whole (magic, hash, lengths, version) before anything in it is used, then read a section at a time.
 */
import { createHash } from "node:crypto";
import { type FileHandle, open, rename, rm, stat } from "node:fs/promises";
import { endianness } from "node:os";

const MAGIC = Buffer.from("D1NSNAP\n");
const TAIL = 4 + 32;

export interface SnapshotHeader {
  version: number;
  /** Byte length of each section, in order. */
  lengths: number[];
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

/** Bytes read at a time while checking a file's hash (the event loop gets a turn between reads). */
const READ_CHUNK = 4 * 1024 * 1024;

/**
 * A checked snapshot file, open: its header, and its sections read one at a time when asked (each into a
 * buffer of its own, so typed arrays take it without a copy). Read through the handle the file was checked by:
 * a snapshot written meanwhile (renamed over it) changes nothing read here.
 */
export interface SnapshotReader<H> {
  header: H & SnapshotHeader;
  section(i: number): Promise<Uint8Array>;
  close(): Promise<void>;
}

/**
 * The file's header, its sections to be read one at a time; undefined when there is no file; a reason (for one
 * log line) when it is not to be trusted: too large for `maxBytes`, torn, corrupt, another version. The whole
 * file is hashed first, in chunks (never held whole): nothing in it is used before it is checked.
 */
export async function readSnapshotFile<H>(
  file: string,
  version: number,
  maxBytes: number,
): Promise<SnapshotReader<H> | undefined | { ignored: string }> {
  const size = await stat(file).then(
    (s) => s.size,
    () => undefined,
  );
  if (size === undefined) return undefined;
  if (size > maxBytes) return { ignored: `${size} bytes, over the memory budget` };
  if (endianness() !== "LE") return { ignored: "written little-endian, read on a big-endian machine" };
  const handle = await open(file, "r").catch(() => undefined);
  if (!handle) return undefined;
  try {
    const checked = await checkedHeader<H>(handle, version);
    if ("ignored" in checked) {
      await handle.close();
      return checked;
    }
    const { header, starts } = checked;
    return {
      header,
      section: async (i) => {
        const at = starts[i];
        const length = header.lengths[i];
        if (at === undefined || length === undefined) throw new Error(`section ${i} missing`);
        return readAt(handle, at, length);
      },
      close: () => handle.close(),
    };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The file's header and where each section starts, once its magic, hash, lengths and version are checked. */
async function checkedHeader<H>(
  handle: FileHandle,
  version: number,
): Promise<{ header: H & SnapshotHeader; starts: number[] } | { ignored: string }> {
  const size = (await handle.stat()).size;
  if (size < MAGIC.byteLength + TAIL) return { ignored: "not a snapshot, or cut short" };
  const bodyLength = size - 32;
  const magic = await readAt(handle, 0, MAGIC.byteLength);
  if (!Buffer.from(magic).equals(MAGIC)) return { ignored: "not a snapshot, or cut short" };
  const hash = createHash("sha256");
  const buffer = new Uint8Array(Math.min(READ_CHUNK, bodyLength));
  for (let at = 0; at < bodyLength; at += buffer.byteLength) {
    const part = buffer.subarray(0, Math.min(buffer.byteLength, bodyLength - at));
    hash.update(await readInto(handle, part, at));
  }
  const stored = await readAt(handle, bodyLength, 32);
  if (!hash.digest().equals(stored)) return { ignored: "checksum differs (torn or corrupt)" };
  const jsonLength = Buffer.from(await readAt(handle, bodyLength - 4, 4)).readUInt32LE(0);
  const jsonStart = bodyLength - 4 - jsonLength;
  if (jsonStart < MAGIC.byteLength) return { ignored: "header length out of range" };
  let header: H & SnapshotHeader;
  try {
    header = JSON.parse(Buffer.from(await readAt(handle, jsonStart, jsonLength)).toString("utf8"));
  } catch {
    return { ignored: "header is not JSON" };
  }
  if (header.version !== version) return { ignored: `format version ${header.version}, not ${version}` };
  const starts: number[] = [];
  let at = MAGIC.byteLength;
  for (const length of header.lengths) {
    starts.push(at);
    at += length;
  }
  if (at !== jsonStart) return { ignored: "section lengths do not add up" };
  return { header, starts };
}

/** `length` bytes of the file from `position`, in a buffer of their own. */
function readAt(handle: FileHandle, position: number, length: number): Promise<Uint8Array> {
  return readInto(handle, new Uint8Array(length), position);
}

/** Fills `bytes` from the file at `position`. */
async function readInto(handle: FileHandle, bytes: Uint8Array, position: number): Promise<Uint8Array> {
  const length = bytes.byteLength;
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(bytes, done, length - done, position + done);
    if (bytesRead === 0) throw new Error("snapshot file cut short while read");
    done += bytesRead;
  }
  return bytes;
}
