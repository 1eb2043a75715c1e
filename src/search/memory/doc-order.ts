/**
 * A column's documents in sort order (by their least value, then identifier ascending), made once and then kept
 * by merging: when a column packs its rewritten documents in, its orders are the old ones without them merged
 * with them sorted (a pass over the order, a sort of the few rewritten), never a sort of every document again.
 * A page sorted by one field reads the first matching documents off it instead of scanning every match.
 * Documents without a value are left out (they sort last, and top-docs.ts finds them by a scan).
 */
import { byteOrder } from "../schema/byte-order.ts";
import type { Column } from "./columns.ts";

export interface DocOrder {
  /** Document numbers, in order. */
  docs: Int32Array;
  /** Each one's key (the least number, or the least value). */
  keys: Float64Array | string[];
}

type Key = number | string | undefined;

/** The key of a document in `column`: NaN / undefined when it has no value. */
function keyOf(column: Column, numeric: boolean): (doc: number) => Key {
  return numeric ? (doc) => column.leastNumber(doc) : (doc) => column.leastValue(doc);
}

const missing = (key: Key) => key === undefined || (typeof key === "number" && Number.isNaN(key));

/** Compares (document, key) pairs as the order does. */
function comparer(column: Column, descending: boolean) {
  const sign = descending ? -1 : 1;
  const numbers = column.docs;
  return (a: number, x: Key, b: number, y: Key): number =>
    sign * (typeof x === "number" ? x - (y as number) : byteOrder(x as string, y as string)) ||
    numbers.comparePids(a, b);
}

/** The `docs` (with their keys) as an order. */
function orderOf(docs: number[], keys: Key[], numeric: boolean): DocOrder {
  return {
    docs: Int32Array.from(docs),
    keys: numeric ? Float64Array.from(keys as number[]) : (keys as string[]),
  };
}

/** Documents 0 .. packedDocs - 1 having a value, sorted. */
export function docOrder(
  column: Column,
  packedDocs: number,
  numeric: boolean,
  descending: boolean,
): DocOrder {
  const key = keyOf(column, numeric);
  const keys: Key[] = new Array(packedDocs);
  const docs: number[] = [];
  for (let doc = 0; doc < packedDocs; doc++) {
    keys[doc] = key(doc);
    if (!missing(keys[doc])) docs.push(doc);
  }
  const compare = comparer(column, descending);
  docs.sort((a, b) => compare(a, keys[a], b, keys[b]));
  return orderOf(
    docs,
    docs.map((doc) => keys[doc]),
    numeric,
  );
}

/** A saved order's documents with their keys again (a pass, no sort): restoring a snapshot. */
export function orderOfDocs(column: Column, docs: Int32Array, numeric: boolean): DocOrder {
  const key = keyOf(column, numeric);
  const keys = Array.from(docs, (doc) => key(doc));
  return { docs, keys: numeric ? Float64Array.from(keys as number[]) : (keys as string[]) };
}

/**
 * `order` after the documents `rewritten` changed (the column's patched ones, their keys as it now gives them):
 * the others in their kept order merged with the rewritten ones that have a value, sorted.
 */
export function mergedOrder(
  order: DocOrder,
  column: Column,
  rewritten: Iterable<number>,
  numeric: boolean,
  descending: boolean,
): DocOrder {
  const compare = comparer(column, descending);
  const added = rewrittenInOrder(column, rewritten, numeric, descending);
  // Typed from the start (a million documents: no array of numbers grown and copied).
  const docs = new Int32Array(order.docs.length + added.docs.length);
  const keys: Float64Array | Key[] = numeric ? new Float64Array(docs.length) : [];
  let length = 0;
  const push = (doc: number, key: Key) => {
    docs[length] = doc;
    keys[length++] = key as number & string;
  };
  let j = 0;
  const addedDoc = (at: number) => added.docs[at] as number;
  const addedKey = (at: number) => added.keys[at] as Key;
  for (let i = 0; i < order.docs.length; i++) {
    const doc = order.docs[i] as number;
    if (column.isPatched(doc)) continue;
    const k = order.keys[i] as Key;
    for (; j < added.docs.length && compare(addedDoc(j), addedKey(j), doc, k) < 0; j++)
      push(addedDoc(j), addedKey(j));
    push(doc, k);
  }
  for (; j < added.docs.length; j++) push(addedDoc(j), addedKey(j));
  return {
    docs: docs.slice(0, length),
    keys: keys instanceof Float64Array ? keys.slice(0, length) : (keys as string[]),
  };
}

/**
 * The rewritten (patched) documents having a value, sorted as the order sorts: kept by the column until its
 * patches change, so a page sorted by the field does not sort them again at every query.
 */
export function rewrittenInOrder(
  column: Column,
  rewritten: Iterable<number>,
  numeric: boolean,
  descending: boolean,
): DocOrder {
  const key = keyOf(column, numeric);
  const compare = comparer(column, descending);
  const added = [...rewritten].map((doc) => ({ doc, key: key(doc) })).filter((each) => !missing(each.key));
  added.sort((a, b) => compare(a.doc, a.key, b.doc, b.key));
  return orderOf(
    added.map((each) => each.doc),
    added.map((each) => each.key),
    numeric,
  );
}
