/**
 * The documents each filter clause matches, kept as bitsets (Solr's filterCache): q, every fq, the access and
 * archived conditions of a search are each looked up here, so the clauses common to a page's queries (the
 * catalog filter, the caller's access) are read from the database once. A kept set is brought up to date
 * before use by asking the database about just the documents written since (src/db/index-changes.ts), or
 * read anew when too many were.
 */
import type { IndexChangeLog } from "../../db/index-changes.ts";
import type { SearchEngineDb } from "../../db/search/index.ts";
import type { Condition } from "../query-sql.ts";
import { Bitset } from "./bitset.ts";
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
    const { db, docs } = this.source;
    const pids = await db.search.matchingPids(this.condition);
    const set = new Bitset(docs.size);
    for (const pid of pids) set.add(docs.numberOf(pid));
    this.set = set;
  }

  protected async recheck(changed: string[]): Promise<void> {
    const { db, docs } = this.source;
    const matching = await db.search.matchingAmong(changed, this.condition);
    // Applied at once, after every read: a query never sees the set half rechecked.
    for (const pid of changed) this.set.delete(docs.numberOf(pid));
    for (const pid of matching) this.set.add(docs.numberOf(pid));
  }
}

export class ClauseCache {
  private readonly clauses = new Map<string, CachedClause>();

  constructor(
    readonly db: SearchEngineDb,
    readonly log: IndexChangeLog,
    readonly docs: DocNumbers,
    readonly tally: ReadTally,
  ) {}

  /** Bytes held by the kept sets. */
  bytes(): number {
    let bytes = 0;
    for (const clause of this.clauses.values()) bytes += clause.set.words.byteLength;
    return bytes;
  }

  /** Lets go of the least recently used sets until at most `bytes` are held (or none is); the bytes now held. */
  shrinkTo(bytes: number): number {
    let held = this.bytes();
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
    else clause = new CachedClause(this, condition);
    this.clauses.set(key, clause);
    if (this.clauses.size > MAX_CLAUSES) {
      const oldest = this.clauses.keys().next().value;
      if (oldest !== undefined) this.clauses.delete(oldest);
    }
    await clause.upTo(this.log);
    return clause.set;
  }
}
