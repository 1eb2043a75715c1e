/**
 * A field's values per document, in memory (Solr's docValues), for facet counts and sorting: each distinct
 * value gets an ordinal; documents' ordinals are packed in one array (CSR: `starts[doc]` to `starts[doc + 1]`),
 * and documents rewritten since the packing are patched beside it until the patches are many, when the whole is
 * packed again. Read from search_values (non-text fields); kept current from the change log (refreshing.ts).
 */

import { ScratchInts } from "../answers/scratch-ints.ts";
import { byteOrder } from "../schema/byte-order.ts";
import { fieldSpec } from "../schema/fields.ts";
import { indexedText } from "../schema/index-rows.ts";
import type { SearchEngineDb } from "../store/index.ts";
import { Bitset } from "./bitset.ts";
import type { ChangedValues, ValueRow as FieldValueRow } from "./changed-values.ts";
import type { ChunkedReads } from "./chunked-reads.ts";
import type { CountedDocs } from "./doc-list.ts";
import type { DocNumbers } from "./doc-numbers.ts";
import { type DocOrder, docOrder, mergedOrder, orderOfDocs, rewrittenInOrder } from "./doc-order.ts";
import { KeptCounts } from "./kept-counts.ts";
import { OrdinalPairs, type Ordinals, type Packed, postings, repack } from "./packed-ordinals.ts";
import { type ReadTally, Refreshing } from "./refreshing.ts";
import { type ColumnState, patchArrays, patchMap } from "./snapshot/column-state.ts";
import { ValueDictionary } from "./value-dictionary.ts";

/**
 * Documents patched beside the packed arrays at most: 1,000, or 1 % of the documents (each query sorting by
 * the field sorts the matching ones; packing anew costs a pass over every document and new sort orders).
 */
const MIN_PATCHES = 1000;
/** Fewer values met than 1 in this many of a field's values: a facet pages through just those (count). */
const FEW_VALUES = 8;
const PATCHES_PER_DOC = 0.01;
const NONE = new Int32Array(0);
/** The values a small result has, as met, then in byte order, and their counts in that order. */
const metScratch = new ScratchInts();
const orderScratch = new ScratchInts();
const countsScratch = new ScratchInts();

type ValueRow = Pick<FieldValueRow, "value" | "num">;

export class Column extends Refreshing {
  private readonly dictionary = new ValueDictionary();
  /** How many documents have each value. */
  private totals = new Int32Array(0);
  private starts: Uint32Array = new Uint32Array(1);
  private packed: Ordinals = new Uint16Array(0);
  private patched = new Uint8Array(0);
  private readonly patches = new Map<number, Int32Array>();
  /** Zero counts for every value (zeroedCounts). */
  private scratchCounts: Int32Array | undefined;
  /** Counts over the last large result, kept current (kept-counts.ts); dropped when the field is read anew. */
  private kept: KeptCounts | undefined;
  /** The packed documents by value (made when first asked, dropped when packing again). */
  private postings: Packed | undefined;
  /** Sort orders of the packed documents, by direction (made when asked, merged when packing again). */
  private orders = new Map<string, DocOrder>();
  /** The patched documents in sort order, by direction (made when asked, dropped when the patches change). */
  private rewrittenOrders = new Map<string, DocOrder>();

  constructor(
    private readonly db: SearchEngineDb,
    private readonly changedValues: ChangedValues,
    readonly docs: DocNumbers,
    readonly field: string,
    tally: ReadTally,
    private readonly reads: ChunkedReads,
  ) {
    super(tally);
  }

  /**
   * How many of the documents in `matches` have each value (indexed by ordinal), counted over `counted` (the
   * matching documents, or the others, their counts taken from the totals), or moved from the kept counts of
   * an earlier large result when it differs from this one in fewer documents (kept-counts.ts). When the
   * matching documents have fewer than 1 in FEW_VALUES of the values, just the values they have, in byte order
   * (`order`), with their counts beside them: facet.mincount is at least 1, so a facet of many values (a site
   * each) pages through those alone (facet-page.ts). Both arrays are read before any column counts again.
   */
  count(matches: Bitset, counted: CountedDocs): { counts: Int32Array; order?: Int32Array } {
    const distinct = this.values.length;
    // A field no document has a value of (the taxonomic ranks of a node without them): nothing to visit.
    if (distinct === 0) return { counts: NONE, order: NONE };
    const { docs, others } = counted;
    const kept = this.kept;
    if (kept && kept.differences(matches, docs.length) < docs.length) {
      return { counts: kept.follow(matches, distinct, (doc, visit) => this.visitOrdinals(doc, visit)) };
    }
    if (others) {
      const counts = this.totals.slice(0, distinct);
      this.countDocs(docs, counts, -1, undefined);
      this.kept = KeptCounts.of(matches, counts);
      return { counts };
    }
    const counts = this.zeroedCounts(distinct);
    const met = this.countDocs(docs, counts, 1, metScratch.take(Math.min(distinct, 1024))) ?? NONE;
    if (met.length * FEW_VALUES >= distinct) {
      this.scratchCounts = undefined;
      return { counts };
    }
    const order = this.dictionary.inOrder(met, orderScratch.take(met.length));
    const countsInOrder = countsScratch.take(order.length).subarray(0, order.length);
    for (let i = 0; i < order.length; i++) {
      const ord = order[i] as number;
      countsInOrder[i] = counts[ord] as number;
      counts[ord] = 0;
    }
    return { counts: countsInOrder, order };
  }

  /**
   * An array of zero counts for every value, kept between queries (zeroed again where counted): a new one of a
   * field of millions of values (a site each) cost its allocation, its pages' first touches and the collector.
   */
  private zeroedCounts(distinct: number): Int32Array {
    if (!this.scratchCounts || this.scratchCounts.length < distinct)
      this.scratchCounts = new Int32Array(Math.max(distinct, Math.ceil(distinct * 1.25)));
    return this.scratchCounts;
  }

  /**
   * Adds `step` to the count of each value of each of `docs`; with `met`, lists there (grown as needed) each
   * value whose count leaves zero, returning that list.
   */
  private countDocs(
    docs: Int32Array,
    counts: Int32Array,
    step: number,
    met: Int32Array | undefined,
  ): Int32Array | undefined {
    const { starts, packed, patched } = this;
    const packedDocs = starts.length - 1;
    const anyPatched = this.patches.size > 0;
    let metList = met;
    let metCount = 0;
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i] as number;
      let ords: Ordinals = packed;
      let from = 0;
      let to = 0;
      if (anyPatched && patched[doc] === 1) {
        ords = this.patches.get(doc) ?? NONE;
        to = ords.length;
      } else if (doc < packedDocs) {
        from = starts[doc] as number;
        to = starts[doc + 1] as number;
      }
      for (let j = from; j < to; j++) {
        const ord = ords[j] as number;
        const was = counts[ord] as number;
        counts[ord] = was + step;
        if (was === 0 && metList !== undefined) {
          if (metCount === metList.length)
            metList = metScratch.grow(metList, metCount, Math.max(16, metCount * 2));
          metList[metCount++] = ord;
        }
      }
    }
    return metList?.subarray(0, metCount);
  }

  /** Calls `visit` with each of a document's ordinals. */
  private visitOrdinals(doc: number, visit: (ord: number) => void): void {
    const [from, to, ords] = this.rangeOf(doc);
    for (let j = from; j < to; j++) visit(ords[j] as number);
  }

  /** The documents having `value` (from the postings, made once per packing when first asked). */
  docsWith(value: string): Bitset {
    const set = new Bitset(this.docs.size);
    const ord = this.dictionary.find(value);
    if (ord === undefined) return set;
    const { patched } = this;
    this.postings ??= postings({ starts: this.starts, ords: this.packed }, this.values.length);
    const { starts, ords: docs } = this.postings;
    const end = ord + 1 < starts.length ? (starts[ord + 1] as number) : 0;
    for (let j = starts[ord] ?? 0; j < end; j++) {
      const doc = docs[j] as number;
      if (patched[doc] !== 1) set.add(doc);
    }
    for (const [patchedDoc, ords] of this.patches) if (ords.includes(ord)) set.add(patchedDoc);
    return set;
  }

  /** The least number among a document's values (NaN: it has none). */
  leastNumber(doc: number): number {
    const [from, to, ords] = this.rangeOf(doc);
    let least = Number.NaN;
    for (let j = from; j < to; j++) {
      const num = this.nums[ords[j] as number];
      if (num !== null && num !== undefined && !(num >= least)) least = num;
    }
    return least;
  }

  /** The least value (byte order) among a document's values. */
  leastValue(doc: number): string | undefined {
    const [from, to, ords] = this.rangeOf(doc);
    let least: string | undefined;
    for (let j = from; j < to; j++) {
      const value = this.values[ords[j] as number] as string;
      if (least === undefined || byteOrder(value, least) < 0) least = value;
    }
    return least;
  }

  /** Distinct values, by ordinal, and their numbers (numeric fields). */
  get values(): readonly string[] {
    return this.dictionary.values;
  }

  get nums(): readonly (number | null)[] {
    return this.dictionary.nums;
  }

  /** The ordinals, in byte order of their values. */
  valueOrder(): readonly number[] {
    return this.dictionary.order();
  }

  isPatched(doc: number): boolean {
    return this.patched[doc] === 1;
  }

  /** Documents rewritten since the last packing (their values are not in the sort orders). */
  patchedDocs(): IterableIterator<number> {
    return this.patches.keys();
  }

  /** The packed documents in sort order for this column alone (see doc-order.ts). */
  order(numeric: boolean, descending: boolean): DocOrder {
    const key = `${numeric}|${descending}`;
    let order = this.orders.get(key);
    if (!order) {
      order = docOrder(this, this.starts.length - 1, numeric, descending);
      this.orders.set(key, order);
    }
    return order;
  }

  /** The patched documents having a value, in sort order for this column alone (kept until patches change). */
  rewrittenOrder(numeric: boolean, descending: boolean): DocOrder {
    const key = `${numeric}|${descending}`;
    let order = this.rewrittenOrders.get(key);
    if (!order) {
      order = rewrittenInOrder(this, this.patches.keys(), numeric, descending);
      this.rewrittenOrders.set(key, order);
    }
    return order;
  }

  /** Where a document's ordinals are: ords[from] to ords[to - 1]. */
  private rangeOf(doc: number): [from: number, to: number, ords: Ordinals] {
    if (this.patched[doc] === 1) {
      const patch = this.patches.get(doc) ?? NONE;
      return [0, patch.length, patch];
    }
    if (doc >= this.starts.length - 1) return [0, 0, NONE];
    return [this.starts[doc] as number, this.starts[doc + 1] as number, this.packed];
  }

  protected async reread(): Promise<void> {
    // In chunks, each row kept as a (document, ordinal) pair: never the whole field's rows at once.
    const pairs = new OrdinalPairs();
    const spec = fieldSpec(this.field);
    const numberText = (num: number) => (spec ? indexedText(spec, num) : String(num));
    const chunks = this.db.search.valuesOfField(this.field, numberText, this.reads.chunk);
    for await (const { pids, values, nums } of chunks) {
      await this.reads.each(pids.length, (i) => {
        const ord = this.ordinalOf({ value: values[i] as string, num: nums?.[i] ?? null });
        pairs.push(this.docs.numberOf(pids[i] as string), ord);
      });
      // Not yet in bytes(): the pairs, and the packed arrays made from them (held with them while packing).
      await this.reads.afterChunk(pairs.bytes + (this.docs.size + 1) * 4 + pairs.length * 4);
    }
    this.patches.clear();
    this.patched = new Uint8Array(0);
    this.kept = undefined;
    this.totals = new Int32Array(this.values.length);
    this.tally(pairs.ords.subarray(0, pairs.length), 1);
    this.install(pairs.pack(this.docs.size, this.values.length));
  }

  /** Bytes held: the packed arrays, patches, totals, kept orders and the values (estimated). */
  bytes(): number {
    let bytes =
      this.starts.byteLength + this.packed.byteLength + this.totals.byteLength + this.patched.byteLength;
    for (const patch of this.patches.values()) bytes += patch.byteLength + 64;
    for (const order of [...this.orders.values(), ...this.rewrittenOrders.values()])
      bytes += order.docs.byteLength + order.keys.length * 8;
    if (this.postings) bytes += this.postings.starts.byteLength + this.postings.ords.byteLength;
    if (this.kept) bytes += this.kept.bytes();
    return bytes + (this.scratchCounts?.byteLength ?? 0) + this.dictionary.bytes();
  }

  /** The column as it stands, for a snapshot: packed arrays are replaced, never changed in place; patches copied. */
  saved(): ColumnState {
    const orders = [...this.orders].map(([key, order]) => ({ key, docs: order.docs }));
    const { field, starts, packed } = this;
    return {
      field,
      values: [...this.values],
      nums: [...this.nums],
      starts,
      packed,
      patches: patchArrays(this.patches),
      orders,
    };
  }

  /**
   * Takes a saved state (checked: column-state.ts) as this new column's, reflecting change `seq` of the log; no
   * query reads the column before this resolves (it belongs to a memory being read).
   */
  async restore(state: ColumnState, seq: number): Promise<void> {
    const { values, nums } = state;
    // A value per document in some fields: their ordinals taken with turns of the event loop between.
    await this.reads.each(values.length, (i) =>
      this.ordinalOf({ value: values[i] as string, num: nums[i] ?? null }),
    );
    this.install({ starts: state.starts, ords: state.packed });
    this.patched = new Uint8Array(this.docs.size);
    this.totals = new Int32Array(this.values.length);
    this.tally(state.packed, 1);
    for (const [doc, ords] of patchMap(state.patches)) {
      this.tally(this.ordinalsOf(doc), -1);
      this.tally(ords, 1);
      this.patches.set(doc, ords);
      this.patched[doc] = 1;
    }
    for (const { key, docs } of state.orders)
      this.orders.set(key, orderOfDocs(this, docs, key.startsWith("true")));
    this.restoredAt(seq);
  }

  protected async recheck(changed: string[]): Promise<void> {
    const byDoc = new Map<number, number[]>();
    for (const row of await this.changedValues.of(changed, this.field)) {
      const doc = this.docs.numberOf(row.pid);
      const list = byDoc.get(doc);
      if (list) list.push(this.ordinalOf(row));
      else byDoc.set(doc, [this.ordinalOf(row)]);
    }
    // Applied at once, after every read: a query never counts a half-updated column.
    const changedDocs = changed.map((pid) => this.docs.numberOf(pid));
    if (this.patched.length < this.docs.size) {
      const grown = new Uint8Array(Math.max(this.docs.size, this.patched.length * 2));
      grown.set(this.patched);
      this.patched = grown;
    }
    this.rewrittenOrders.clear();
    const kept = this.kept;
    for (const doc of changedDocs) {
      const old = this.ordinalsOf(doc);
      this.tally(old, -1);
      const ords = Int32Array.from(byDoc.get(doc) ?? []);
      this.tally(ords, 1);
      if (kept?.has(doc)) {
        kept.adjust(old, -1, this.values.length);
        kept.adjust(ords, 1, this.values.length);
      }
      this.patches.set(doc, ords);
      this.patched[doc] = 1;
    }
    if (this.patches.size > Math.max(MIN_PATCHES, this.docs.size * PATCHES_PER_DOC)) this.repack();
  }

  private ordinalsOf(doc: number): Ordinals {
    const [from, to, ords] = this.rangeOf(doc);
    return ords.subarray(from, to);
  }

  private tally(ords: ArrayLike<number>, step: number): void {
    if (this.totals.length < this.values.length) {
      const grown = new Int32Array(Math.max(this.values.length, this.totals.length * 2));
      grown.set(this.totals);
      this.totals = grown;
    }
    for (let i = 0; i < ords.length; i++) {
      const ord = ords[i] as number;
      this.totals[ord] = (this.totals[ord] as number) + step;
    }
  }

  /** The ordinal of a row's value, a new one for a value not met before. */
  private ordinalOf(row: ValueRow): number {
    return this.dictionary.ordinalOf(row.value, row.num);
  }

  /** The packed arrays anew, with the patches folded in; the kept orders merged with the patched documents. */
  private repack(): void {
    const packed = repack(
      this.docs.size,
      this.values.length,
      { starts: this.starts, ords: this.packed },
      this.patched,
      this.patches,
    );
    const rewritten = [...this.patches.keys()];
    const orders = new Map<string, DocOrder>();
    for (const [key, order] of this.orders) {
      const [numeric, descending] = key.split("|").map((flag) => flag === "true") as [boolean, boolean];
      orders.set(key, mergedOrder(order, this, rewritten, numeric, descending));
    }
    this.patches.clear();
    this.patched.fill(0);
    this.install(packed, orders);
    this.readTally.packings++;
  }

  private install({ starts, ords }: { starts: Uint32Array; ords: Ordinals }, orders = new Map()): void {
    this.starts = starts;
    this.packed = ords;
    this.postings = undefined;
    this.rewrittenOrders.clear();
    this.orders = orders;
  }
}
