/**
 * A column as saved in a snapshot of the engine's memory (memory-snapshot.ts): its distinct values, the packed
 * arrays, the documents patched since the packing, and its kept sort orders (their documents only: the keys are
 * the documents' values again). Totals, value order and postings are made again on restore.
 */
import type { Ordinals } from "../packed-ordinals.ts";

export interface PatchArrays {
  docs: Int32Array;
  /** `ords[starts[i]]` to `ords[starts[i + 1] - 1]`: the ordinals of `docs[i]`. */
  starts: Uint32Array;
  ords: Int32Array;
}

export interface ColumnState {
  field: string;
  values: string[];
  nums: (number | null)[];
  starts: Uint32Array;
  packed: Ordinals;
  patches: PatchArrays;
  /** Kept sort orders: key `numeric|descending`, the documents in order. */
  orders: { key: string; docs: Int32Array }[];
}

/** The patches as three arrays (copied: the column keeps changing its own). */
export function patchArrays(patches: ReadonlyMap<number, Int32Array>): PatchArrays {
  const docs = new Int32Array(patches.size);
  const starts = new Uint32Array(patches.size + 1);
  let length = 0;
  let i = 0;
  for (const [doc, ords] of patches) {
    docs[i++] = doc;
    length += ords.length;
    starts[i] = length;
  }
  const ords = new Int32Array(length);
  i = 0;
  for (const list of patches.values()) ords.set(list, starts[i++] as number);
  return { docs, starts, ords };
}

/** The patches as a column keeps them. */
export function patchMap({ docs, starts, ords }: PatchArrays): Map<number, Int32Array> {
  const out = new Map<number, Int32Array>();
  for (let i = 0; i < docs.length; i++) {
    out.set(docs[i] as number, ords.slice(starts[i] as number, starts[i + 1] as number));
  }
  return out;
}

/** Throws unless the state's arrays fit together and within `docCount` documents (a snapshot is checked whole). */
export function checkColumnState(state: ColumnState, docCount: number): void {
  const packedDocs = state.starts.length - 1;
  const fits =
    packedDocs >= 0 &&
    packedDocs <= docCount &&
    state.values.length === state.nums.length &&
    state.starts[packedDocs] === state.packed.length &&
    state.patches.starts.length === state.patches.docs.length + 1 &&
    state.patches.docs.every((doc) => doc >= 0 && doc < docCount) &&
    state.orders.every((order) => order.docs.every((doc) => doc >= 0 && doc < packedDocs));
  if (!fits) throw new Error(`column ${state.field}: arrays do not fit together`);
  const distinct = state.values.length;
  for (const ord of state.packed)
    if (ord >= distinct) throw new Error(`column ${state.field}: unknown value`);
  for (const ord of state.patches.ords)
    if (ord >= distinct) throw new Error(`column ${state.field}: unknown value`);
}
