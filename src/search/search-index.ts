/**
 * One node's search engine state: the index change log (kept by the database, which notes every index write
 * and, on PostgreSQL, other processes' writes), the engine's memory (memory/) and the cache of results and
 * answers (search-cache.ts). Opened with the node, carried on its context (`ctx.search`), closed with it.
 *
 * The memory has a budget (`searchMemoryBudget`, bytes). Before reading anything the engine expects
 * `EXPECTED_BYTES_PER_DOC` a document; once it holds structures it counts them (memory/index.ts `bytes`). Over
 * the budget it lets go of kept clause sets, and when that is not enough, of the whole memory: searches are then
 * answered by SQL alone (the same answers, slower), and the document count is looked at again every minute at
 * most, to read the memory anew once it would fit.
 *
 * After index writes the memory brings itself up to date in the background (`refreshAfter` ms after the last
 * noted change), so a burst of writes is rechecked while it happens, not by the next query.
 *
 * A large index (`backgroundFrom` documents or more) has its memory read in the background, by the search page's
 * query (memory-warm.ts): meanwhile every search is answered by SQL alone, and the memory answers once that
 * read is done. A small one is read by the first query that needs it.
 */
import type { IndexChangeLog } from "../db/index-changes.ts";
import { SearchCache } from "./answers/search-cache.ts";
import { OverBudget } from "./memory/chunked-reads.ts";
import { SearchMemory } from "./memory/index.ts";
import type { ReadTally } from "./memory/refreshing.ts";
import { MemorySnapshots, type SnapshotOptions } from "./memory-snapshot.ts";
import { warmMemory } from "./memory-warm.ts";
import type { SqlDialect } from "./query/query-sql.ts";
import { TRUE } from "./store/conditions.ts";
import { asEngineDb, type SearchEngineDb, type SearchSource } from "./store/index.ts";

/** The default budget, 1 GiB: the search page's memory for 2.5 million documents fits (docs/performance.md). */
export const DEFAULT_MEMORY_BUDGET = 2 ** 30;
/**
 * Bytes a document is expected to cost before anything is read: its number, the search page's ten facet
 * columns and page order, a few clause sets (the figure: docs/decisions.md, "Search: figures behind the code's
 * choices").
 */
const EXPECTED_BYTES_PER_DOC = 420;
/** From this many documents the memory is read in the background while SQL answers (well under a second below). */
const BACKGROUND_FROM = 5000;
/** After a noted change, how long the memory waits for more before bringing itself up to date (ms). */
const REFRESH_AFTER = 10;
/** Answering by SQL, how long before the document count is looked at again (ms). */
const RECONSIDER_AFTER = 60_000;

export interface SearchIndexOptions {
  /** Bytes the memory may hold (`searchMemoryBudget`). */
  memoryBudget?: number;
  /** Bytes a document is expected to cost before anything is read (tests). */
  expectedBytesPerDoc?: number;
  /** From this many documents the memory is read in the background, SQL answering meanwhile (tests). */
  backgroundFrom?: number;
  /** Fills a new memory in the background (default: the search page's query answered from it). */
  warm?: (memory: SearchMemory) => Promise<void>;
  /** After a noted change, ms before the memory brings itself up to date in the background (tests). */
  refreshAfter?: number;
  /** The clock (ms), for tests. */
  now?: () => number;
  /** Where the memory is saved, read at start in place of the database (memory-snapshot.ts); none: not saved. */
  snapshot?: SnapshotOptions;
  /** Rows per chunk when the memory reads a structure whole (tests; default 100,000: memory/chunked-reads.ts). */
  readChunk?: number;
}

/** What the engine answers from, and what it holds (metrics, status page). */
export interface EngineStatus {
  /**
   * memory: the engine's memory; loading: SQL alone while the memory is read; sql: SQL alone, over budget;
   * untrusted: SQL alone, the change log is not.
   */
  mode: "memory" | "loading" | "sql" | "untrusted";
  /** Bytes the memory's structures hold (typed arrays' lengths, strings and their slots: memory/index.ts). */
  bytes: number;
  budget: number;
  documents: number;
  /** The whole process, beside the memory's bytes: its resident set and V8's heap (used, and taken). */
  rss: number;
  heapUsed: number;
  heapTotal: number;
  /** Structures read whole, and rechecked for changed documents, since the index was opened. */
  rereads: number;
  rechecks: number;
}

export class SearchIndex {
  readonly db: SearchEngineDb;
  readonly dialect: SqlDialect;
  readonly changes: IndexChangeLog;
  readonly cache: SearchCache;
  readonly memoryBudget: number;
  /** The memory's snapshot file: read before a background read, written after reads and packings. */
  readonly snapshots: MemorySnapshots;
  private kept: SearchMemory | undefined;
  /** Set while over budget: the bytes a document was found to cost, and when that was decided. */
  private overBudget: { bytesPerDoc: number; at: number } | undefined;
  /** Reads of memories let go of. */
  private readonly pastTally: ReadTally = { rereads: 0, rechecks: 0, packings: 0 };
  private readonly now: () => number;
  private readonly expectedBytesPerDoc: number;
  private readonly backgroundFrom: number;
  private readonly warm: (memory: SearchMemory) => Promise<void>;
  /** The memory being read in the background, and the read. */
  private loading: { memory: SearchMemory; done: Promise<void> } | undefined;
  private readonly refreshAfter: number;
  private readonly readChunk: number | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  /** The background refresh under way (search-index.ts top). */
  private refreshing: Promise<void> | undefined;
  private readonly stopListening: () => void;

  constructor(source: SearchSource, options: SearchIndexOptions = {}) {
    const database = asEngineDb(source);
    this.db = database;
    this.dialect = database.dialect;
    this.changes = database.indexChanges;
    this.memoryBudget = options.memoryBudget ?? DEFAULT_MEMORY_BUDGET;
    // The caches' bytes beside the memory: 1/16 of its budget each (64 MiB of the default), at least 1 MiB.
    this.cache = new SearchCache(this.changes, Math.max(2 ** 20, Math.floor(this.memoryBudget / 16)));
    this.now = options.now ?? Date.now;
    this.expectedBytesPerDoc = options.expectedBytesPerDoc ?? EXPECTED_BYTES_PER_DOC;
    this.backgroundFrom = options.backgroundFrom ?? BACKGROUND_FROM;
    this.warm = options.warm ?? ((memory) => warmMemory(this, memory));
    this.refreshAfter = options.refreshAfter ?? REFRESH_AFTER;
    this.readChunk = options.readChunk;
    this.stopListening = this.changes.onNote(() => this.scheduleRefresh());
    this.snapshots = new MemorySnapshots(database, this.memoryBudget, options.snapshot, () => this.kept);
  }

  /** Resolves once no background refresh is pending or running (tests). */
  async settled(): Promise<void> {
    while (this.refreshTimer || this.refreshing) {
      await (this.refreshing ?? new Promise((resolve) => setTimeout(resolve, this.refreshAfter)));
    }
  }

  private scheduleRefresh(): void {
    if (!this.kept || this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      const memory = this.kept;
      if (!memory || !this.changes.trusted || this.refreshing) {
        // A refresh under way schedules the next when it ends.
        return;
      }
      this.refreshing = memory
        .refresh()
        // A failure is met again, and reported, by the next query that brings the memory up to date.
        .catch(() => undefined)
        .finally(() => {
          this.refreshing = undefined;
          if (this.kept !== memory) return;
          if (memory.behind()) this.scheduleRefresh();
          else this.snapshots.consider(memory);
        });
    }, this.refreshAfter);
    this.refreshTimer.unref();
  }

  /** The engine's memory as it stands, or undefined while the change log cannot be trusted or over budget. */
  memory(): SearchMemory | undefined {
    if (!this.changes.trusted || this.overBudget) return undefined;
    this.kept ??= this.newMemory();
    return this.kept;
  }

  /**
   * The memory a query may use: undefined (SQL alone) while the log is not trusted, the budget is exceeded or
   * the memory is being read in the background.
   */
  async memoryForQuery(): Promise<SearchMemory | undefined> {
    if (!this.changes.trusted) return undefined;
    await this.startReading();
    return this.kept;
  }

  /**
   * Has the memory read (in the background when the index is large) and resolves once it answers, or once it
   * is clear it will not (over budget, log not trusted). A failed read rejects; the next query tries again.
   */
  async prepare(): Promise<void> {
    await (await this.startReading())?.done;
  }

  /**
   * Starts reading the memory unless it is held, already being read, or would not fit; the background read
   * under way, if any. A small index's memory is made here and read by the query that needs it.
   */
  private async startReading(): Promise<{ done: Promise<void> } | undefined> {
    if (!this.changes.trusted || this.kept) return undefined;
    if (this.loading) return this.loading;
    const documents = await this.documentsIfFitting();
    // Another query may have started the read while the documents were counted.
    const meanwhile = this.loading as { done: Promise<void> } | undefined;
    if (documents === undefined || this.kept || meanwhile) return meanwhile;
    if (documents >= this.backgroundFrom) return this.loadInBackground();
    this.kept = this.newMemory();
    return undefined;
  }

  /** A memory whose reads check this budget after each chunk (memory/chunked-reads.ts). */
  private newMemory(): SearchMemory {
    return new SearchMemory(this.db, { budget: this.memoryBudget, chunk: this.readChunk });
  }

  private loadInBackground(): { done: Promise<void> } {
    const memory = this.newMemory();
    const done = this.snapshots
      .start(memory)
      .then(() => this.warm(memory))
      .then(
        () => {
          if (this.loading?.memory !== memory) return;
          this.loading = undefined;
          this.kept = memory;
          this.keepWithinBudget();
        },
        (error: unknown) => {
          if (this.loading?.memory !== memory) throw error;
          this.loading = undefined;
          // Over budget while reading: SQL answers, as when found over once read (not a failure).
          if (error instanceof OverBudget) this.overBudgetWhileReading(memory, error);
          else throw error;
        },
      );
    // A failure reaches prepare()'s callers; a query that only started the read answers by SQL regardless.
    done.catch(() => undefined);
    this.loading = { memory, done };
    return this.loading;
  }

  /** After a query answered from memory: over budget, lets go of clause sets, or of the whole memory. */
  keepWithinBudget(): void {
    const kept = this.kept;
    if (kept?.fitTo(this.memoryBudget)) this.snapshots.consider(kept);
    if (!kept || kept.fitTo(this.memoryBudget)) return;
    this.overBudget = { bytesPerDoc: kept.bytes() / Math.max(1, kept.docs.size), at: this.now() };
    this.dropMemory();
  }

  /**
   * A read of `memory` stopped, the budget about to be passed (memory/chunked-reads.ts): the memory is let
   * go of, and searches are answered by SQL alone until a count shows it would fit (as `keepWithinBudget`).
   */
  overBudgetWhileReading(memory: SearchMemory, over: OverBudget): void {
    if (this.kept !== undefined && this.kept !== memory) return;
    // Over the documents numbered so far (maybe not all yet): the cost a document is taken at on the next count.
    const bytesPerDoc = over.bytes / Math.max(1, memory.docs.size);
    this.overBudget = { bytesPerDoc, at: this.now() };
    this.dropMemory();
  }

  status(): EngineStatus {
    const kept = this.kept;
    const { rss, heapUsed, heapTotal } = process.memoryUsage();
    const tally = kept?.tally ?? { rereads: 0, rechecks: 0, packings: 0 };
    return {
      mode: !this.changes.trusted
        ? "untrusted"
        : this.overBudget
          ? "sql"
          : this.loading
            ? "loading"
            : "memory",
      bytes: kept?.bytes() ?? 0,
      budget: this.memoryBudget,
      documents: kept?.docs.size ?? 0,
      rss,
      heapUsed,
      heapTotal,
      rereads: this.pastTally.rereads + tally.rereads,
      rechecks: this.pastTally.rechecks + tally.rechecks,
    };
  }

  /** Lets go of the memory and the cache. */
  close(): void {
    this.stopListening();
    this.snapshots.close();
    clearTimeout(this.refreshTimer);
    this.refreshTimer = undefined;
    this.dropMemory();
    this.cache.clear();
  }

  /** The documents counted, when the memory is expected to fit at the bytes a document cost last time. */
  private async documentsIfFitting(): Promise<number | undefined> {
    const over = this.overBudget;
    if (over && this.now() - over.at < RECONSIDER_AFTER) return undefined;
    const documents = await this.db.search.countMatching(TRUE);
    const bytesPerDoc = over?.bytesPerDoc ?? this.expectedBytesPerDoc;
    this.overBudget =
      documents * bytesPerDoc > this.memoryBudget ? { bytesPerDoc, at: this.now() } : undefined;
    return this.overBudget === undefined ? documents : undefined;
  }

  private dropMemory(): void {
    this.loading = undefined;
    if (!this.kept) return;
    this.pastTally.rereads += this.kept.tally.rereads;
    this.pastTally.rechecks += this.kept.tally.rechecks;
    this.kept = undefined;
  }
}

export function openSearchIndex(database: SearchSource, options: SearchIndexOptions = {}): SearchIndex {
  return new SearchIndex(database, options);
}
