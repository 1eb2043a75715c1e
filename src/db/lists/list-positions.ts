/**
 * start/count paging with keyset queries underneath. DataONE lists page by position (`start`), but an OFFSET
 * scan costs in proportion to the position, a keyset page does not (docs/decisions.md, "Hot paths").
 *
 * Per filter, the pager remembers sort keys at positions it has seen: the key before every multiple of STEP that
 * a page covered, and the ends of the last few pages. A page continues from the nearest remembered key at or
 * before `start` and skips the few rows in between with a small OFFSET. A jump beyond what is remembered walks
 * there in hops of STEP rows, remembering every hop: read from the sort keys alone, a thousand hops per query
 * (`keysEvery`), so that the first jump costs about one scan of an index, and the next ones almost nothing.
 * Totals (a COUNT over the filter) are remembered too.
 *
 * Writers bracket each transaction with begin() and end(writes). A written row that the filter can tell is not in
 * its list changes nothing; one that is (or may be) moves the remembered keys at or after it, which are dropped,
 * and adds to or takes from the total (dropped when the filter cannot tell). Keys before it stay valid, so a
 * harvest keeps its pace while new objects arrive at the end. A read keeps the keys it found before the lowest
 * key written while it ran (the read may or may not have seen that write); a total read while a write was in
 * flight or ended during the read is not kept.
 * warm() walks a whole list in the background (after a start), so that no request pays for the first jump.
 * The memory is per process. Other processes' writes (PostgreSQL) are heard through the change feed
 * (`change-feed.ts`), which names the lowest sort key each commit wrote but not which lists the rows are in:
 * every list drops its keys from there on and its total (writtenElsewhere()); keys before it stay, so new rows
 * appended at a list's end cost nothing. While the feed is down the pager is distrusted and remembers nothing.
 */
import { firstIndex, type KeysetSource, type Mark, type Write } from "./keyset-source.ts";

/** A read in progress: the lowest key written while it ran, or that it cannot tell (`unknown`). */
export interface Read<Key> {
  cacheKey: string;
  lowest?: Key;
  unknown: boolean;
}

export interface Remembered<Key, Fact> {
  total?: number;
  includes?: (fact: Fact) => boolean | undefined;
  /** Sorted by position, hence by key. */
  checkpoints: Mark<Key>[];
  /** Ends of the last pages served, newest last. */
  recent: Mark<Key>[];
  /** Positions of slice ends: how many rows sort before `bound` (dropped by a write before it). */
  edges: Map<string, { bound: Key; position: number }>;
}

export const STEP = 1000;
/** Hops read by one keysEvery query: up to a million sort keys per statement. */
const HOPS_PER_QUERY = 1000;
const RECENT = 8;
const MAX_FILTERS = 64;
/** Across all filters: at 1000 rows apart, 200,000 keys cover 200M listed rows. */
const MAX_CHECKPOINTS = 200_000;

export class ListPositions<Key, Fact = never> {
  constructor(protected readonly compare: (a: Key, b: Key) => number) {}

  protected readonly filters = new Map<string, Remembered<Key, Fact>>();
  private generation = 0;
  private inFlight = 0;
  private checkpointCount = 0;
  protected trusted = true;
  protected readonly reads = new Set<Read<Key>>();

  /** A write transaction starts. */
  begin(): void {
    this.inFlight++;
  }

  /** It ended: committed with these writes, or "unknown" (rolled back, failed) to forget everything. */
  end(writes: readonly Write<Key, Fact>[] | "unknown"): void {
    this.inFlight--;
    this.generation++;
    for (const read of this.reads) {
      if (writes === "unknown") read.unknown = true;
      else for (const { key } of writes) this.lower(read, key);
    }
    if (writes === "unknown") {
      this.filters.clear();
      this.checkpointCount = 0;
      return;
    }
    for (const memory of this.filters.values()) {
      for (const write of writes) this.apply(memory, write);
    }
  }

  /** Forget the lists of these filters: they depend on a table whose writes this pager does not hear of. */
  forget(test: (cacheKey: string) => boolean): void {
    this.generation++;
    for (const read of this.reads) if (test(read.cacheKey)) read.unknown = true;
    for (const [cacheKey, memory] of this.filters) {
      if (!test(cacheKey)) continue;
      this.checkpointCount -= memory.checkpoints.length;
      this.filters.delete(cacheKey);
    }
  }

  /**
   * Another process wrote rows at or after `key` (committed already), in lists it cannot name: every list drops
   * its keys from there on and its total, and keeps the keys before.
   */
  writtenElsewhere(key: Key): void {
    this.generation++;
    for (const read of this.reads) this.lower(read, key);
    for (const memory of this.filters.values()) {
      memory.total = undefined;
      this.dropFrom(memory, key);
    }
  }

  /** false: writes may go unheard (forget everything, remember nothing); true: they are heard again. */
  trust(heard: boolean): void {
    this.trusted = heard;
    this.forget(() => true);
  }

  async page<Row>(
    source: KeysetSource<Row, Key, Fact>,
    start: number,
    count: number,
  ): Promise<{ total: number; rows: Row[] }> {
    const generation = this.generation;
    const quiet = this.inFlight === 0;
    const memory = this.entry(source.cacheKey);
    if (source.includes) memory.includes = source.includes;
    const read = this.startRead(source.cacheKey);
    try {
      const total = memory.total ?? (await source.count());
      const current =
        this.trusted && generation === this.generation && this.filters.get(source.cacheKey) === memory;
      if (current && quiet && this.inFlight === 0) memory.total = total;
      return { total, rows: await this.rowsAt(source, memory, read, start, count, total) };
    } finally {
      this.reads.delete(read);
    }
  }

  /**
   * Walks the whole list from its last remembered key, remembering a key every STEP rows, until the end, `signal`
   * aborts, or the list is forgotten (a write elsewhere, PostgreSQL); resolves to the positions remembered.
   */
  async warm<Row>(source: KeysetSource<Row, Key, Fact>, signal: AbortSignal): Promise<number> {
    const memory = this.entry(source.cacheKey);
    if (source.includes) memory.includes = source.includes;
    while (!signal.aborted && this.trusted && this.filters.get(source.cacheKey) === memory) {
      const from = memory.checkpoints.at(-1) ?? { position: 0, key: undefined };
      const read = this.startRead(source.cacheKey);
      try {
        const keys = await this.hop(source, from, STEP, HOPS_PER_QUERY);
        keys.forEach((key, i) => {
          const mark = { position: from.position + (i + 1) * STEP, key };
          if (this.keeps(read, memory, mark)) this.checkpoint(memory, mark);
        });
        if (keys.length < HOPS_PER_QUERY) break;
      } finally {
        this.reads.delete(read);
      }
    }
    return memory.checkpoints.length;
  }

  protected async rowsAt<Row>(
    source: KeysetSource<Row, Key, Fact>,
    memory: Remembered<Key, Fact>,
    read: Read<Key>,
    start: number,
    count: number,
    total: number,
  ): Promise<Row[]> {
    if (count <= 0 || start >= total) return [];

    let from = this.nearest(memory, start);
    // Hop to the last multiple of STEP at or before start, remembering each.
    let next = (Math.floor(from.position / STEP) + 1) * STEP;
    while (next <= start) {
      const hops = Math.min(HOPS_PER_QUERY, Math.floor((start - next) / STEP) + 1);
      const keys = await this.hop(source, from, next - from.position, hops);
      for (const key of keys) {
        from = { position: next, key };
        if (this.keeps(read, memory, from)) this.checkpoint(memory, from);
        next += STEP;
      }
      if (keys.length < hops) return [];
    }

    const rows = await source.fetch(from.key, start - from.position, count);
    for (let at = (Math.floor(start / STEP) + 1) * STEP; at <= start + rows.length; at += STEP) {
      const mark = { position: at, key: source.keyOf(rows[at - start - 1] as Row) };
      if (this.keeps(read, memory, mark)) this.checkpoint(memory, mark);
    }
    const end = {
      position: start + rows.length,
      key: rows.length > 0 ? source.keyOf(rows.at(-1) as Row) : undefined,
    };
    if (rows.length > 0 && this.keeps(read, memory, end)) {
      memory.recent = memory.recent.filter((mark) => mark.position !== end.position);
      memory.recent.push(end);
      if (memory.recent.length > RECENT) memory.recent.shift();
    }
    return rows;
  }

  protected startRead(cacheKey: string): Read<Key> {
    const read: Read<Key> = { cacheKey, unknown: false };
    this.reads.add(read);
    return read;
  }

  /** Whether a mark the read found still holds: before every key written meanwhile, in a list not forgotten. */
  protected keeps(read: Read<Key>, memory: Remembered<Key, Fact>, mark: Mark<Key>): boolean {
    if (!this.trusted || read.unknown || this.filters.get(read.cacheKey) !== memory) return false;
    return read.lowest === undefined || (mark.key !== undefined && this.compare(mark.key, read.lowest) < 0);
  }

  /** Keys `first`, `first + STEP`, ... rows after `from` (`hops` of them, fewer at the end). */
  protected async hop<Row>(
    source: KeysetSource<Row, Key, Fact>,
    from: Mark<Key>,
    first: number,
    hops: number,
  ): Promise<Key[]> {
    if (source.keysEvery) return source.keysEvery(from.key, first, STEP, hops);
    const [row] = await source.fetch(from.key, first - 1, 1);
    return row === undefined ? [] : [source.keyOf(row)];
  }

  private apply(memory: Remembered<Key, Fact>, write: Write<Key, Fact>): void {
    const was = write.before === undefined ? false : memory.includes?.(write.before);
    const is = write.after === undefined ? false : memory.includes?.(write.after);
    if (was === false && is === false) return;
    if (memory.total !== undefined) {
      memory.total =
        was === undefined || is === undefined ? undefined : memory.total + Number(is) - Number(was);
    }
    this.dropFrom(memory, write.key);
  }

  /** Drops the marks at or after `key`: a row written there moved them. */
  private dropFrom(memory: Remembered<Key, Fact>, key: Key): void {
    const shifted = (mark: Mark<Key>) => mark.key !== undefined && this.compare(mark.key, key) >= 0;
    const keep = firstIndex(memory.checkpoints, shifted);
    this.checkpointCount -= memory.checkpoints.length - keep;
    memory.checkpoints.length = keep;
    memory.recent = memory.recent.filter((mark) => !shifted(mark));
    for (const [name, edge] of memory.edges) if (this.compare(key, edge.bound) < 0) memory.edges.delete(name);
  }

  private lower(read: Read<Key>, key: Key): void {
    if (read.lowest === undefined || this.compare(key, read.lowest) < 0) read.lowest = key;
  }

  /** The remembered mark closest to `start` from below (position 0 when none). */
  private nearest(memory: Remembered<Key, Fact>, start: number): Mark<Key> {
    const { checkpoints } = memory;
    const index = firstIndex(checkpoints, (mark) => mark.position > start) - 1;
    let best: Mark<Key> = checkpoints[index] ?? { position: 0, key: undefined };
    for (const mark of memory.recent) {
      if (mark.position <= start && mark.position > best.position) best = mark;
    }
    return best;
  }

  protected checkpoint(memory: Remembered<Key, Fact>, mark: Mark<Key>): void {
    const { checkpoints } = memory;
    const index = firstIndex(checkpoints, (m) => m.position >= mark.position);
    if (checkpoints[index]?.position === mark.position) return;
    if (this.checkpointCount >= MAX_CHECKPOINTS) this.evictOthers(memory);
    if (this.checkpointCount >= MAX_CHECKPOINTS) return;
    checkpoints.splice(index, 0, mark);
    this.checkpointCount++;
  }

  /** Forget least recently used filters until there is room again. */
  private evictOthers(keep: Remembered<Key, Fact>): void {
    for (const [cacheKey, memory] of this.filters) {
      if (this.checkpointCount < MAX_CHECKPOINTS) return;
      if (memory === keep) continue;
      this.checkpointCount -= memory.checkpoints.length;
      this.filters.delete(cacheKey);
    }
  }

  /** The filter's memory, moved to the most recently used end. */
  protected entry(cacheKey: string): Remembered<Key, Fact> {
    let memory = this.filters.get(cacheKey);
    if (memory) {
      this.filters.delete(cacheKey);
    } else {
      memory = { checkpoints: [], recent: [], edges: new Map() };
      const oldest = this.filters.size >= MAX_FILTERS ? this.filters.entries().next().value : undefined;
      if (oldest) {
        this.checkpointCount -= oldest[1].checkpoints.length;
        this.filters.delete(oldest[0]);
      }
    }
    this.filters.set(cacheKey, memory);
    return memory;
  }
}
