/**
 * The pager of the lists: remembered positions (ListPositions, list-positions.ts), plus two things built on them.
 * A slice of a list (a date window: KeysetSource.slice) is paged as a stretch of its parent's list when the
 * parent's remembered keys reach both ends: its total is the difference of the two ends' positions, and its
 * pages share the parent's keys, so that no window is counted or scanned up to its position. And a list of
 * `walkFrom` rows or more, or the parent of a slice whose ends its keys did not reach, is walked in the
 * background after a page (warm(), one walk at a time), so that later jumps and slices start from its keys.
 */
import { firstIndex, type KeysetSource, type Mark, type Slice } from "./keyset-source.ts";
import { ListPositions, type Read, type Remembered, STEP } from "./list-positions.ts";

export type { KeysetSource, Write } from "./keyset-source.ts";

/** The end of a slice between two remembered marks: `rows` apart, the lower one `below`. */
interface Gap<Key> {
  below: Mark<Key>;
  bound: Key;
  rows: number;
}

/** Slice ends remembered per list. */
const MAX_EDGES = 64;
/** A slice's end is found from remembered keys when it lies within this many rows of one (hops of one query). */
const MAX_GAP = 100 * STEP;

export class KeysetPager<Key, Fact = never> extends ListPositions<Key, Fact> {
  /** Filters walked in the background after a large page (walkLater), and the walk under way. */
  private readonly walked = new Set<string>();
  private walking: Promise<unknown> | undefined;
  private readonly stopping = new AbortController();

  /** `walkFrom`: a list this long or longer is walked in the background after its first page (see page()). */
  constructor(
    compare: (a: Key, b: Key) => number,
    private readonly walkFrom = Number.POSITIVE_INFINITY,
  ) {
    super(compare);
  }

  /** Resolves once the background walk under way (if any) ended. */
  async walkEnded(): Promise<void> {
    await this.walking;
  }

  /** Stops the background walks; resolves once the one under way ended. */
  async stopWalks(): Promise<void> {
    this.stopping.abort();
    await this.walking;
  }

  /** A list walked (after a start, or by walkLater) is not walked again by walkLater. */
  override warm<Row>(source: KeysetSource<Row, Key, Fact>, signal: AbortSignal): Promise<number> {
    this.walked.add(source.cacheKey);
    return super.warm(source, signal);
  }

  override async page<Row>(
    source: KeysetSource<Row, Key, Fact>,
    start: number,
    count: number,
  ): Promise<{ total: number; rows: Row[] }> {
    const sliced = source.slice && (await this.pageSlice(source.slice, start, count));
    if (sliced) return sliced;
    // A slice whose parent's keys did not reach its ends: walk the parent, so that the next ones do.
    if (source.slice) this.walkLater(source.slice.parent);
    const page = await super.page(source, start, count);
    if (page.total >= this.walkFrom) this.walkLater(source);
    return page;
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
}
