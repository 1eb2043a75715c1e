/**
 * The search engine's memory of one index: document numbers, the filter clauses' document sets and the fields'
 * per-document values, each brought up to date from the index's change log before use. Used only while that
 * log is trusted (always on SQLite; on PostgreSQL while the change feed hears the other processes), and while
 * it fits the memory budget (search-index.ts).
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import type { IndexChangeLog } from "../../db/index-changes.ts";
import { ScratchInts } from "../answers/scratch-ints.ts";
import type { ChangePosition } from "../store/change-positions.ts";
import { asEngineDb, type SearchEngineDb, type SearchSource } from "../store/index.ts";
import { ChangedValues } from "./changed-values.ts";
import { type ChunkedReadOptions, ChunkedReads } from "./chunked-reads.ts";
import { ClauseCache, type ClauseState } from "./clauses.ts";
import { Column } from "./columns.ts";
import { DocNumbers, type PidList } from "./doc-numbers.ts";
import type { ReadTally } from "./refreshing.ts";
import { type ColumnState, checkColumnState } from "./snapshot/column-state.ts";

/** Fields whose values are kept at most (the least recently used are let go). */
const MAX_COLUMNS = 64;
/** Clause sets brought up to date after writes, ahead of the next query (the most recently used). */
const REFRESHED_CLAUSES = 16;

/** The memory as saved in a snapshot (memory-snapshot.ts): what it reflects, and its structures. */
export interface MemoryState extends ChangePosition {
  pids: PidList;
  columns: ColumnState[];
  clauses: ClauseState[];
}

export class SearchMemory {
  readonly docs = new DocNumbers();
  readonly clauses: ClauseCache;
  /** How often structures were read whole or rechecked. */
  readonly tally: ReadTally = { rereads: 0, rechecks: 0, packings: 0 };
  /**
   * The database's change position this memory is known to reflect, with the change log: every change at or
   * before it is reflected, or noted in the log (undefined: not known yet).
   */
  position: ChangePosition | undefined;
  private readonly columns = new Map<string, Column>();
  private readonly changedValues: ChangedValues;

  private readonly log: IndexChangeLog;
  /** How structures are read whole: in chunks, the budget checked after each (chunked-reads.ts). */
  private readonly reads: ChunkedReads;

  private readonly db: SearchEngineDb;

  constructor(database: SearchSource, reads: ChunkedReadOptions = {}) {
    const db = asEngineDb(database);
    this.db = db;
    this.log = db.indexChanges;
    this.reads = new ChunkedReads(() => this.bytes(), reads);
    this.clauses = new ClauseCache(db, this.log, this.docs, this.tally, this.reads);
    this.changedValues = new ChangedValues(db, this.log, () => [...this.columns.keys()]);
  }

  /** Whether the values of `field` are held (a column read before, for a facet or a sort). */
  holds(field: string): boolean {
    return this.columns.has(field);
  }

  /** The values of a (non-text) field per document, up to date with every noted change. */
  async column(field: string): Promise<Column> {
    let column = this.columns.get(field);
    if (column) this.columns.delete(field);
    else column = new Column(this.db, this.changedValues, this.docs, field, this.tally, this.reads);
    this.columns.set(field, column);
    if (this.columns.size > MAX_COLUMNS) {
      const oldest = this.columns.keys().next().value;
      if (oldest !== undefined) this.columns.delete(oldest);
    }
    await column.upTo(this.log);
    return column;
  }

  /**
   * Brings the held columns and the most recently used clause sets up to date with the change log: run in the
   * background after writes (search-index.ts), so the next query finds little or nothing to recheck.
   */
  async refresh(): Promise<void> {
    for (const column of [...this.columns.values()]) await column.upTo(this.log);
    await this.clauses.refreshRecent(REFRESHED_CLAUSES);
  }

  /**
   * The structures reflecting change `seq` of the log, as of `position` (the caller noted every change up to it
   * in the log by `seq`). Synchronous: a consistent picture; arrays that change in place are copied.
   */
  saved(seq: number, position: ChangePosition): MemoryState {
    const columns: ColumnState[] = [];
    for (const column of this.columns.values()) if (column.reflects(seq)) columns.push(column.saved());
    const pids = this.docs.saved();
    return { ...position, pids, columns, clauses: this.clauses.saved(seq) };
  }

  /**
   * Fills this new memory from a saved state, taken as reflecting the log up to change `seq`; the event loop
   * gets a turn between its parts (the PIDs by chunks, each column).
   */
  async restore(state: MemoryState, seq: number): Promise<void> {
    for (const column of state.columns) {
      checkColumnState(column, state.pids.length);
      await nextTurn();
    }
    await this.docs.restore(state.pids);
    for (const saved of state.columns) {
      const column = new Column(this.db, this.changedValues, this.docs, saved.field, this.tally, this.reads);
      await column.restore(saved, seq);
      this.columns.set(saved.field, column);
      await nextTurn();
    }
    this.clauses.restore(state.clauses, seq);
    this.position = { origin: state.origin, position: state.position };
  }

  /** Whether a held column is behind the change log. */
  behind(): boolean {
    for (const column of this.columns.values()) if (column.behind(this.log)) return true;
    return false;
  }

  /** Estimated bytes held: document numbers, clause sets, columns, the queries' scratch arrays. */
  bytes(): number {
    let bytes = this.docs.bytes + this.clauses.bytes() + ScratchInts.held;
    for (const column of this.columns.values()) bytes += column.bytes();
    return bytes;
  }

  /**
   * Lets go of kept clause sets (least recently used first) until at most `budget` bytes are held; false when
   * that is not enough (the document numbers and the columns alone are over).
   */
  fitTo(budget: number): boolean {
    const rest = this.bytes() - this.clauses.bytes();
    return rest + this.clauses.shrinkTo(Math.max(0, budget - rest)) <= budget;
  }
}
