/**
 * start/count paging with keyset queries underneath. DataONE lists page by position (`start`), but an OFFSET
 * scan costs in proportion to the position (measured: 65 ms at the end of 1M rows vs 2-4 ms for a keyset page).
 *
 * Per filter, the pager remembers sort keys at positions it has seen: the key before every multiple of STEP that
 * a page covered, and the ends of the last few pages. A page continues from the nearest remembered key at or
 * before `start` and skips the few rows in between with a small OFFSET. A jump beyond what is remembered walks
 * there in hops of STEP rows, remembering every hop: read from the sort keys alone, a thousand hops per query
 * (`keysEvery`), so that the first jump costs about one scan of an index, and the next ones almost nothing. Totals (a COUNT over the filter) are remembered too.
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
 * A slice of a list (a date window: KeysetSource.slice) is paged as a stretch of its parent's list when the
 * parent's remembered keys reach both ends: its total is the difference of the two ends' positions, and its
 * pages share the parent's keys, so that no window is counted or scanned up to its position.
 */
import { firstIndex, type KeysetSource, type Mark, type Slice, type Write } from "./keyset-source.ts";

export type { KeysetSource, Write } from "./keyset-source.ts";

/** A read in progress: the lowest key written while it ran, or that it cannot tell (`unknown`). */
interface Read<Key> {
  cacheKey: string;
  lowest?: Key;
  unknown: boolean;
}

interface Remembered<Key, Fact> {
  total?: number;
  includes?: (fact: Fact) => boolean | undefined;
  /** Sorted by position, hence by key. */
  checkpoints: Mark<Key>[];
  /** Ends of the last pages served, newest last. */
  recent: Mark<Key>[];
  /** Positions of slice ends: how many rows sort before `bound` (dropped by a write before it). */
  edges: Map<string, { bound: Key; position: number }>;
}

/** The end of a slice between two remembered marks: `rows` apart, the lower one `below`. */
interface Gap<Key> {
  below: Mark<Key>;
  bound: Key;
  rows: number;
}

const STEP = 1000;
/** Hops read by one keysEvery query: up to a million sort keys per statement. */
const HOPS_PER_QUERY = 1000;
const RECENT = 8;
/** Slice ends remembered per list. */
const MAX_EDGES = 64;
/** A slice's end is found from remembered keys when it lies within this many rows of one (hops of one query). */
const MAX_GAP = 100 * STEP;
const MAX_FILTERS = 64;
/** Across all filters: at 1000 rows apart, 200,000 keys cover 200M listed rows. */
const MAX_CHECKPOINTS = 200_000;

export class KeysetPager<Key, Fact = never> {
  private readonly filters = new Map<string, Remembered<Key, Fact>>();
  private generation = 0;
  private inFlight = 0;
  private checkpointCount = 0;
  private trusted = true;
  private readonly reads = new Set<Read<Key>>();

  /** Filters walked in the background after a large page (walkLater), and the walk under way. */
  private readonly walked = new Set<string>();
  private walking: Promise<unknown> | undefined;
  private readonly stopping = new AbortController();

  /** `walkFrom`: a list this long or longer is walked in the background after its first page (see page()). */
  constructor(
    private readonly compare: (a: Key, b: Key) => number,
    private readonly walkFrom = Number.POSITIVE_INFINITY,
  ) {}

  /** Resolves once the background walk under way (if any) ended. */
  async walkEnded(): Promise<void> {
    await this.walking;
  }

  /** Stops the background walks; resolves once the one under way ended. */
  async stopWalks(): Promise<void> {
    this.stopping.abort();
    await this.walking;
  }

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
    const sliced = source.slice && (await this.pageSlice(source.slice, start, count));
    if (sliced) return sliced;
    // A slice whose parent's keys did not reach its ends: walk the parent, so that the next ones do.
    if (source.slice) this.walkLater(source.slice.parent);
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
      if (total >= this.walkFrom) this.walkLater(source);
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

  /**
   * The slice's page as a stretch of its parent's list, when the parent's remembered keys reach both its ends
   * (undefined otherwise: the slice is then paged as a list of its own).
   */
  private async pageSlice<Row>(
    slice: Slice<Row, Key, Fact>,
    start: number,
    count: number,
  ): Promise<{ total: number; rows: Row[] } | undefined> {
    const { parent } = slice;
    if (!this.trusted || !parent.keysEvery) return undefined;
    const memory = this.entry(parent.cacheKey);
    if (parent.includes) memory.includes = parent.includes;
    const read = this.startRead(parent.cacheKey);
    try {
      const listed = memory.total ?? (parent.countIsKept ? await parent.count() : undefined);
      const first = slice.from === undefined ? 0 : await this.edge(parent, memory, read, slice.from, listed);
      const end = slice.to === undefined ? listed : await this.edge(parent, memory, read, slice.to, listed);
      if (first === undefined || end === undefined) return undefined;
      const total = Math.max(0, end - first);
      const rows = await this.rowsAt(
        parent,
        memory,
        read,
        first + start,
        Math.min(count, total - start),
        end,
      );
      return { total, rows };
    } finally {
      this.reads.delete(read);
    }
  }

  /** How many rows sort before `bound`: remembered, or found from the marks (undefined when they are too far). */
  private async edge<Row>(
    parent: KeysetSource<Row, Key, Fact>,
    memory: Remembered<Key, Fact>,
    read: Read<Key>,
    bound: Key,
    listed: number | undefined,
  ): Promise<number | undefined> {
    const name = JSON.stringify(bound);
    const known = memory.edges.get(name);
    if (known) return known.position;
    const gap = this.reach(memory, bound, listed);
    if (gap === null) return undefined;
    const position = await this.rank(parent, memory, read, gap);
    // Kept only when nothing was written before the bound while it was read.
    const current = this.trusted && !read.unknown && this.filters.get(read.cacheKey) === memory;
    if (current && (read.lowest === undefined || this.compare(read.lowest, bound) >= 0)) {
      if (memory.edges.size >= MAX_EDGES) memory.edges.delete(memory.edges.keys().next().value as string);
      memory.edges.set(name, { bound, position });
    }
    return position;
  }

  /**
   * Where the rows before `bound` end in the list: the remembered mark to count from, when the next mark (or the
   * list's end) lies within MAX_GAP rows of it; null when it does not.
   */
  private reach(memory: Remembered<Key, Fact>, bound: Key, listed: number | undefined): Gap<Key> | null {
    const { checkpoints } = memory;
    const above = firstIndex(
      checkpoints,
      (mark) => mark.key !== undefined && this.compare(mark.key, bound) >= 0,
    );
    const below = checkpoints[above - 1] ?? { position: 0, key: undefined };
    const next = checkpoints[above]?.position ?? listed;
    if (next === undefined || next - below.position > MAX_GAP) return null;
    return { below, bound, rows: next - below.position };
  }

  /** The number of rows before the gap's bound: hops from its mark to the last key before it, then counts. */
  private async rank<Row>(
    parent: KeysetSource<Row, Key, Fact>,
    memory: Remembered<Key, Fact>,
    read: Read<Key>,
    gap: Gap<Key>,
  ): Promise<number> {
    let from = gap.below;
    const hops = Math.floor(gap.rows / STEP);
    if (hops > 0) {
      const keys = await this.hop(parent, from, STEP - (from.position % STEP), hops);
      let next = (Math.floor(from.position / STEP) + 1) * STEP;
      for (const key of keys) {
        const mark = { position: next, key };
        if (this.keeps(read, memory, mark)) this.checkpoint(memory, mark);
        if (this.compare(key, gap.bound) >= 0) break;
        from = mark;
        next += STEP;
      }
    }
    const keys = (await parent.keysEvery?.(from.key, 1, 1, STEP)) ?? [];
    return from.position + firstIndex(keys, (key) => this.compare(key, gap.bound) >= 0);
  }

  /**
   * Walks the list in the background (warm()), once per filter and one walk at a time, so that later jumps into
   * it, and slices of it, start from remembered keys.
   */
  private walkLater<Row>(source: KeysetSource<Row, Key, Fact>): void {
    if (this.walking || this.walked.has(source.cacheKey) || this.stopping.signal.aborted) return;
    this.walked.add(source.cacheKey);
    this.walking = this.warm(source, this.stopping.signal)
      .catch(() => undefined)
      .finally(() => {
        this.walking = undefined;
      });
  }

  private async rowsAt<Row>(
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

  private startRead(cacheKey: string): Read<Key> {
    const read: Read<Key> = { cacheKey, unknown: false };
    this.reads.add(read);
    return read;
  }

  /** Whether a mark the read found still holds: before every key written meanwhile, in a list not forgotten. */
  private keeps(read: Read<Key>, memory: Remembered<Key, Fact>, mark: Mark<Key>): boolean {
    if (!this.trusted || read.unknown || this.filters.get(read.cacheKey) !== memory) return false;
    return read.lowest === undefined || (mark.key !== undefined && this.compare(mark.key, read.lowest) < 0);
  }

  /** Keys `first`, `first + STEP`, ... rows after `from` (`hops` of them, fewer at the end). */
  private async hop<Row>(
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

  private checkpoint(memory: Remembered<Key, Fact>, mark: Mark<Key>): void {
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
  private entry(cacheKey: string): Remembered<Key, Fact> {
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
