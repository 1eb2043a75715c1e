/**
 * The documents each filter clause matches, kept as bitsets (Solr's filterCache): q, every fq, the access and
 * archived conditions of a search are each looked up here, so the clauses common to a page's queries (the
 * catalog filter, the caller's access) are read from the database once. A kept set is brought up to date
 * before use by asking the database about just the documents written since (src/db/index-changes.ts), or
 * read anew when too many were.
 */
import { type Kysely, sql } from "kysely";
import type { IndexChangeLog } from "../../db/index-changes.ts";
import type { Tables } from "../../db/schema.ts";
import type { Condition, SqlDialect } from "../query-sql.ts";
import { Bitset } from "./bitset.ts";
import type { DocNumbers } from "./doc-numbers.ts";
import { Refreshing } from "./refreshing.ts";

const MAX_CLAUSES = 256;
/** PIDs per query when rechecking changed documents. */
const RECHECK_BATCH = 500;

class CachedClause extends Refreshing {
  set = new Bitset();

  constructor(
    private readonly source: ClauseCache,
    private readonly condition: Condition,
  ) {
    super();
  }

  protected async reread(): Promise<void> {
    const { db, docs, dialect } = this.source;
    const where = this.condition;
    // One row holding a JSON array: much cheaper to receive than a row per document.
    const list =
      dialect === "postgres"
        ? sql<{ pids: string[] | null }>`select json_agg(d.pid) as pids from search_docs d where ${where}`
        : sql<{ pids: string }>`select json_group_array(d.pid) as pids from search_docs d where ${where}`;
    const row = (await list.execute(db)).rows[0];
    const pids: string[] = typeof row?.pids === "string" ? JSON.parse(row.pids) : (row?.pids ?? []);
    const set = new Bitset(docs.size);
    for (const pid of pids) set.add(docs.numberOf(pid));
    this.set = set;
  }

  protected async recheck(changed: string[]): Promise<void> {
    const { db, docs } = this.source;
    const matching: string[] = [];
    for (let i = 0; i < changed.length; i += RECHECK_BATCH) {
      const batch = changed.slice(i, i + RECHECK_BATCH);
      const rows = await sql<{ pid: string }>`select d.pid from search_docs d
        where d.pid in (${sql.join(batch)}) and (${this.condition})`.execute(db);
      for (const { pid } of rows.rows) matching.push(pid);
    }
    // Applied at once, after every read: a query never sees the set half rechecked.
    for (const pid of changed) this.set.delete(docs.numberOf(pid));
    for (const pid of matching) this.set.add(docs.numberOf(pid));
  }
}

export class ClauseCache {
  private readonly clauses = new Map<string, CachedClause>();

  constructor(
    readonly db: Kysely<Tables>,
    readonly dialect: SqlDialect,
    readonly log: IndexChangeLog,
    readonly docs: DocNumbers,
  ) {}

  /** The documents matching `condition` (over search_docs as `d`), up to date with every noted change. */
  async matching(condition: Condition): Promise<Bitset> {
    const compiled = condition.compile(this.db);
    const key = `${compiled.sql}\u0000${JSON.stringify(compiled.parameters)}`;
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
