/**
 * The engine's memory (`MemoryState`, memory/index.ts) as a snapshot file's header and sections
 * (snapshot-file.ts), and back. PIDs go as JSON arrays of `PID_CHUNK` (a string each, never one huge one); a
 * column's values as one JSON array; its packed arrays, patches, orders and the clause sets as typed arrays.
 * Any change to what is written here changes `SNAPSHOT_VERSION`: a file of another version is ignored.
 */

import type { MemoryState } from "../index.ts";
import type { Ordinals } from "../packed-ordinals.ts";
import type { ColumnState } from "./column-state.ts";
import { bytesOf, type SnapshotReader } from "./snapshot-file.ts";

export const SNAPSHOT_VERSION = 1;
/** PIDs a JSON section: one parse of a few MB at a time on reading. */
const PID_CHUNK = 50_000;

type Width = "u16" | "u32" | "i32";

interface ColumnHeader {
  field: string;
  values: number;
  starts: number;
  packed: number;
  width: Width;
  patchDocs: number;
  patchStarts: number;
  patchOrds: number;
  orders: { key: string; docs: number }[];
}

export interface MemoryHeader {
  version: number;
  origin: string;
  position: string;
  pids: number[];
  columns: ColumnHeader[];
  clauses: { key: string; words: number }[];
}

/** The header and the sections (each made when written) of `state`. */
export function encodeMemory(state: MemoryState): { header: MemoryHeader; sections: (() => Uint8Array)[] } {
  const sections: (() => Uint8Array)[] = [];
  const add = (make: () => Uint8Array) => sections.push(make) - 1;
  const typed = (array: ArrayBufferView) => add(() => bytesOf(array));
  const json = (value: () => unknown) => add(() => Buffer.from(JSON.stringify(value())));
  const pids: number[] = [];
  for (let from = 0; from < state.pids.length; from += PID_CHUNK) {
    pids.push(json(() => state.pids.slice(from, from + PID_CHUNK)));
  }
  const columns = state.columns.map(
    (column): ColumnHeader => ({
      field: column.field,
      values: json(() => [column.values, column.nums]),
      starts: typed(column.starts),
      packed: typed(column.packed),
      width: widthOf(column.packed),
      patchDocs: typed(column.patches.docs),
      patchStarts: typed(column.patches.starts),
      patchOrds: typed(column.patches.ords),
      orders: column.orders.map((order) => ({ key: order.key, docs: typed(order.docs) })),
    }),
  );
  const clauses = state.clauses.map((clause) => ({ key: clause.key, words: typed(clause.words) }));
  const { origin, position } = state;
  return { header: { version: SNAPSHOT_VERSION, origin, position, pids, columns, clauses }, sections };
}

/**
 * The state a checked file holds, its sections read one at a time (the event loop served between reads); throws
 * when its sections are not what the header says.
 */
export async function decodeMemory(file: SnapshotReader<MemoryHeader>): Promise<MemoryState> {
  const { header } = file;
  const json = async (i: number): Promise<unknown> =>
    JSON.parse(Buffer.from(await file.section(i)).toString("utf8"));
  const words = async (i: number) => new Uint32Array(whole(await file.section(i), 4));
  const signed = async (i: number) => new Int32Array(whole(await file.section(i), 4));
  const pids: string[] = [];
  for (const i of header.pids) for (const pid of (await json(i)) as string[]) pids.push(pid);
  const columns: ColumnState[] = [];
  for (const column of header.columns) {
    const [values, nums] = (await json(column.values)) as [string[], (number | null)[]];
    const orders: ColumnState["orders"] = [];
    for (const order of column.orders) orders.push({ key: order.key, docs: await signed(order.docs) });
    columns.push({
      field: column.field,
      values,
      nums,
      starts: await words(column.starts),
      packed: ordinals(await file.section(column.packed), column.width),
      patches: {
        docs: await signed(column.patchDocs),
        starts: await words(column.patchStarts),
        ords: await signed(column.patchOrds),
      },
      orders,
    });
  }
  const clauses: MemoryState["clauses"] = [];
  for (const clause of header.clauses) clauses.push({ key: clause.key, words: await words(clause.words) });
  return { origin: header.origin, position: header.position, pids, columns, clauses };
}

function widthOf(array: Ordinals): Width {
  return array instanceof Uint16Array ? "u16" : array instanceof Uint32Array ? "u32" : "i32";
}

function ordinals(bytes: Uint8Array, width: Width): Ordinals {
  if (width === "u16") return new Uint16Array(whole(bytes, 2));
  return width === "u32" ? new Uint32Array(whole(bytes, 4)) : new Int32Array(whole(bytes, 4));
}

/** A section's buffer (read into one of its own: snapshot-file.ts), checked to hold whole items of `size` bytes. */
function whole(bytes: Uint8Array, size: number): ArrayBuffer {
  if (bytes.byteLength % size !== 0)
    throw new Error("a typed section's length is not a whole number of items");
  if (bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.byteLength)
    return bytes.buffer as ArrayBuffer;
  return new Uint8Array(bytes).buffer;
}
