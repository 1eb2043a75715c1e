/**
 * The documents each filter clause matches, kept as bitsets (Solr's filterCache): q, every fq, the access and
 * archived conditions of a search are each looked up here, so the clauses common to a page's queries (the
 * catalog filter, the caller's access) are read from the database once. A kept set is brought up to date
 * before use by asking the database about just the documents written since (src/db/index-changes.ts), or
 * read anew when too many were.
 */
import type { IndexChangeLog } from "../../db/index-changes.ts";
import type { Condition } from "../query/query-sql.ts";
import type { SearchEngineDb } from "../store/index.ts";
import { Bitset } from "./bitset.ts";
import type { ChunkedReads } from "./chunked-reads.ts";
import type { DocNumbers } from "./doc-numbers.ts";
import { type ReadTally, Refreshing } from "./refreshing.ts";

const MAX_CLAUSES = 256;

class CachedClause extends Refreshing {
  set = new Bitset();

  constructor(
    private readonly source: ClauseCache,
    private readonly condition: Condition,
  ) {
    super(source.tally);
  }

  protected async reread(): Promise<void> {
    const { db, docs, reads } = this.source;
    // Chunk by chunk: the PIDs of one chunk at a time beside the set being built (and the budget checked).
    const set = new Bitset(docs.size);
    for await (const pids of db.search.matchingPidChunks(this.condition, reads.chunk)) {
      await reads.each(pids.length, (i) => set.add(docs.numberOf(pids[i] as string)));
      await reads.afterChunk(set.words.byteLength);
    }
    this.set = set;
  }

  /** Takes a saved set as this clause's, reflecting change `seq` of the log. */
  adopt(set: Bitset, seq: number): void {
    this.set = set;
    this.restoredAt(seq);
  }

  protected async recheck(changed: string[]): Promise<void> {
    const { db, docs } = this.source;
    const matching = await db.search.matchingAmong(changed, this.condition);
    // Applied at once, after every read: a query never sees the set half rechecked.
    for (const pid of changed) this.set.delete(docs.numberOf(pid));
    for (const pid of matching) this.set.add(docs.numberOf(pid));
  }
}

/** A clause's set as saved in a snapshot: its condition's key (conditionKey) and the set's words. */
export interface ClauseState {
  key: string;
  words: Uint32Array;
}

export class ClauseCache {
  private readonly clauses = new Map<string, CachedClause>();
  /** Sets restored from a snapshot, by key, taken up by the first query with that clause. */
  private readonly restored = new Map<string, { set: Bitset; seq: number }>();

  constructor(
    readonly db: SearchEngineDb,
    readonly log: IndexChangeLog,
    readonly docs: DocNumbers,
    readonly tally: ReadTally,
    readonly reads: ChunkedReads,
  ) {}

  /** Bytes held by the kept sets. */
  bytes(): number {
    let bytes = 0;
    for (const clause of this.clauses.values()) bytes += clause.set.words.byteLength;
    for (const { set } of this.restored.values()) bytes += set.words.byteLength;
    return bytes;
  }

  /** The sets reflecting change `seq` of the log, copied (most recently used last). */
  saved(seq: number): ClauseState[] {
    const out: ClauseState[] = [];
    for (const [key, kept] of this.restored) {
      if (kept.seq >= seq) out.push({ key, words: kept.set.words.slice() });
    }
    for (const [key, clause] of this.clauses) {
      if (clause.reflects(seq)) out.push({ key, words: clause.set.words.slice() });
    }
    return out;
  }

  /** Saved sets, reflecting change `seq` of the log, each taken up by the first query with its clause. */
  restore(states: readonly ClauseState[], seq: number): void {
    for (const { key, words } of states) {
      const set = new Bitset();
      set.words = words;
      this.restored.set(key, { set, seq });
    }
  }

  /** Lets go of the least recently used sets until at most `bytes` are held (or none is); the bytes now held. */
  shrinkTo(bytes: number): number {
    let held = this.bytes();
    if (held > bytes) this.restored.clear();
    held = this.bytes();
    for (const [key, clause] of this.clauses) {
      if (held <= bytes) break;
      held -= clause.set.words.byteLength;
      this.clauses.delete(key);
    }
    return held;
  }

  /** Brings the `count` most recently used sets up to date. */
  async refreshRecent(count: number): Promise<void> {
    const recent = [...this.clauses.values()].slice(-count);
    for (const clause of recent) await clause.upTo(this.log);
  }

  /** The documents matching `condition` (over search_docs as `d`), up to date with every noted change. */
  async matching(condition: Condition): Promise<Bitset> {
    const key = this.db.search.conditionKey(condition);
    let clause = this.clauses.get(key);
    if (clause) this.clauses.delete(key);
    else {
      clause = new CachedClause(this, condition);
      const kept = this.restored.get(key);
      this.restored.delete(key);
      if (kept) clause.adopt(kept.set, kept.seq);
    }
    this.clauses.set(key, clause);
    if (this.clauses.size > MAX_CLAUSES) {
      const oldest = this.clauses.keys().next().value;
      if (oldest !== undefined) this.clauses.delete(oldest);
    }
    await clause.upTo(this.log);
    return clause.set;
  }
}
