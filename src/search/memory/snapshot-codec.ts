/**
 * The engine's memory (`MemoryState`, memory/index.ts) as a snapshot file's header and sections
 * (snapshot-file.ts), and back. PIDs go as JSON arrays of `PID_CHUNK` (a string each, never one huge one); a
 * column's values as one JSON array; its packed arrays, patches, orders and the clause sets as typed arrays.
 * Any change to what is written here changes `SNAPSHOT_VERSION`: a file of another version is ignored.
 */
import type { ColumnState } from "./column-state.ts";
import type { MemoryState } from "./index.ts";
import type { Ordinals } from "./packed-ordinals.ts";
import { bytesOf, type SnapshotContents } from "./snapshot-file.ts";

export const SNAPSHOT_VERSION = 1;
const PID_CHUNK = 200_000;

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

/** The state a checked file holds; throws when its sections are not what the header says. */
export function decodeMemory({ header, sections }: SnapshotContents<MemoryHeader>): MemoryState {
  const section = (i: number) => {
    const bytes = sections[i];
    if (!bytes) throw new Error(`section ${i} missing`);
    return bytes;
  };
  const json = (i: number): unknown => JSON.parse(Buffer.from(section(i)).toString("utf8"));
  const pids: string[] = [];
  for (const i of header.pids) for (const pid of json(i) as string[]) pids.push(pid);
  const columns = header.columns.map((column): ColumnState => {
    const [values, nums] = json(column.values) as [string[], (number | null)[]];
    return {
      field: column.field,
      values,
      nums,
      starts: new Uint32Array(aligned(section(column.starts), 4)),
      packed: ordinals(section(column.packed), column.width),
      patches: {
        docs: new Int32Array(aligned(section(column.patchDocs), 4)),
        starts: new Uint32Array(aligned(section(column.patchStarts), 4)),
        ords: new Int32Array(aligned(section(column.patchOrds), 4)),
      },
      orders: column.orders.map((order) => ({
        key: order.key,
        docs: new Int32Array(aligned(section(order.docs), 4)),
      })),
    };
  });
  const clauses = header.clauses.map((clause) => ({
    key: clause.key,
    words: new Uint32Array(aligned(section(clause.words), 4)),
  }));
  return { origin: header.origin, position: header.position, pids, columns, clauses };
}

function widthOf(array: Ordinals): Width {
  return array instanceof Uint16Array ? "u16" : array instanceof Uint32Array ? "u32" : "i32";
}

function ordinals(bytes: Uint8Array, width: Width): Ordinals {
  if (width === "u16") return new Uint16Array(aligned(bytes, 2));
  return width === "u32" ? new Uint32Array(aligned(bytes, 4)) : new Int32Array(aligned(bytes, 4));
}

/** The bytes copied into a buffer of their own (a view of the file may start at any offset). */
function aligned(bytes: Uint8Array, size: number): ArrayBuffer {
  if (bytes.byteLength % size !== 0)
    throw new Error("a typed section's length is not a whole number of items");
  return new Uint8Array(bytes).buffer;
}
