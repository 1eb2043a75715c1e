/**
 * The CSR arrays a column packs its documents' ordinals into: `starts[doc]` to `starts[doc + 1]` index `ords`.
 * Ordinals take 2 bytes while a field has at most 65,536 distinct values, else 4; nothing per document is a JS
 * object, so a column of 2.5 million documents is a few typed arrays.
 */
export type Ordinals = Uint16Array | Uint32Array | Int32Array;

export interface Packed {
  starts: Uint32Array;
  ords: Ordinals;
}

/** An ordinal array wide enough for `distinct` values. */
export function ordinalArray(distinct: number, length: number): Uint16Array | Uint32Array {
  return distinct <= 0x10000 ? new Uint16Array(length) : new Uint32Array(length);
}

/** (document, ordinal) pairs as they are read, in growing typed arrays (8 bytes a value while reading). */
export class OrdinalPairs {
  docs = new Int32Array(1024);
  ords = new Int32Array(1024);
  length = 0;

  /** Bytes held by the pairs' arrays. */
  get bytes(): number {
    return this.docs.byteLength + this.ords.byteLength;
  }

  push(doc: number, ord: number): void {
    if (this.length === this.docs.length) {
      const docs = new Int32Array(this.length * 2);
      docs.set(this.docs);
      this.docs = docs;
      const ords = new Int32Array(this.length * 2);
      ords.set(this.ords);
      this.ords = ords;
    }
    this.docs[this.length] = doc;
    this.ords[this.length] = ord;
    this.length++;
  }

  /** The pairs packed by document (a counting sort), for documents 0 .. docCount - 1. */
  pack(docCount: number, distinct: number): Packed {
    const starts = new Uint32Array(docCount + 1);
    for (let i = 0; i < this.length; i++) {
      const doc = this.docs[i] as number;
      starts[doc + 1] = (starts[doc + 1] as number) + 1;
    }
    for (let doc = 0; doc < docCount; doc++)
      starts[doc + 1] = (starts[doc + 1] as number) + (starts[doc] as number);
    const ords = ordinalArray(distinct, this.length);
    const next = starts.slice(0, docCount);
    for (let i = 0; i < this.length; i++) {
      const doc = this.docs[i] as number;
      const at = next[doc] as number;
      ords[at] = this.ords[i] as number;
      next[doc] = at + 1;
    }
    return { starts, ords };
  }
}

/**
 * The packed arrays anew for documents 0 .. docCount - 1: each patched document's (`patched[doc]` 1) ordinals
 * from `patches`, the others' copied from `packed` (no object per document: a pass over the arrays).
 */
export function repack(
  docCount: number,
  distinct: number,
  packed: Packed,
  patched: Uint8Array,
  patches: ReadonlyMap<number, ArrayLike<number>>,
): Packed {
  const packedDocs = packed.starts.length - 1;
  const none: ArrayLike<number> = [];
  const starts = new Uint32Array(docCount + 1);
  for (let doc = 0; doc < docCount; doc++) {
    let length = 0;
    if (patched[doc] === 1) length = (patches.get(doc) ?? none).length;
    else if (doc < packedDocs) length = (packed.starts[doc + 1] as number) - (packed.starts[doc] as number);
    starts[doc + 1] = (starts[doc] as number) + length;
  }
  const ords = ordinalArray(distinct, starts[docCount] as number);
  for (let doc = 0; doc < docCount; doc++) {
    let to = starts[doc] as number;
    if (patched[doc] === 1) {
      const patch = patches.get(doc) ?? none;
      for (let j = 0; j < patch.length; j++) ords[to++] = patch[j] as number;
    } else if (doc < packedDocs) {
      const end = packed.starts[doc + 1] as number;
      for (let j = packed.starts[doc] as number; j < end; j++) ords[to++] = packed.ords[j] as number;
    }
  }
  return { starts, ords };
}

/**
 * The packed arrays turned around (postings, as a Lucene index keeps them): `docs[starts[ord]]` to
 * `docs[starts[ord + 1] - 1]` are the documents having ordinal `ord`, in order; a pass over every value.
 */
export function postings({ starts, ords }: Packed, distinct: number): Packed {
  const byOrd = new Uint32Array(distinct + 1);
  for (let j = 0; j < ords.length; j++) {
    const ord = ords[j] as number;
    byOrd[ord + 1] = (byOrd[ord + 1] as number) + 1;
  }
  for (let ord = 0; ord < distinct; ord++)
    byOrd[ord + 1] = (byOrd[ord + 1] as number) + (byOrd[ord] as number);
  const docs = new Uint32Array(ords.length);
  const next = byOrd.slice(0, distinct);
  for (let doc = 0; doc + 1 < starts.length; doc++) {
    const end = starts[doc + 1] as number;
    for (let j = starts[doc] as number; j < end; j++) {
      const ord = ords[j] as number;
      docs[next[ord] as number] = doc;
      next[ord] = (next[ord] as number) + 1;
    }
  }
  return { starts: byOrd, ords: docs };
}
