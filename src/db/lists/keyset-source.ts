/** What KeysetPager (pager.ts) pages: a list's queries, and the writes it hears of. */

export interface KeysetSource<Row, Key, Fact> {
  /** Identifies the filter; pages of different filters never share positions. */
  cacheKey: string;
  count(): Promise<number>;
  /** count() reads a kept number (a row count), not the list's rows. */
  countIsKept?: boolean;
  /** Rows after `after` (all rows when undefined), in sort order, skipping `offset`, at most `limit`. */
  fetch(after: Key | undefined, offset: number, limit: number): Promise<Row[]>;
  /**
   * The keys of the rows `first`, `first + step`, ... (`hops` of them, fewer at the end; 1 is the first row)
   * after `after`, read in one pass over the sort keys alone (an index-only scan). Without it, each hop is a
   * fetch of one row.
   */
  keysEvery?(after: Key | undefined, first: number, step: number, hops: number): Promise<Key[]>;
  keyOf(row: Row): Key;
  /** Whether a written row is in this list; undefined when only the database can tell. */
  includes?(fact: Fact): boolean | undefined;
  /**
   * This list is the rows of `parent` whose keys are at or after `from` and before `to` (a date window is a range
   * of the sort key): the pager may page it as that stretch of the parent's list (KeysetPager.page).
   */
  slice?: Slice<Row, Key, Fact>;
}

export interface Slice<Row, Key, Fact> {
  parent: KeysetSource<Row, Key, Fact>;
  from?: Key;
  to?: Key;
}

/** One row written: its sort key (the smaller one when it moved) and what it was and became. */
export interface Write<Key, Fact> {
  key: Key;
  before?: Fact;
  after?: Fact;
}

/** A list position; `key` is the key of the row just before it. */
export interface Mark<Key> {
  position: number;
  key: Key | undefined;
}

/** The first index whose item satisfies `test`, for a test that is false then true along the array. */
export function firstIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (test(items[middle] as T)) high = middle;
    else low = middle + 1;
  }
  return low;
}
