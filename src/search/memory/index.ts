/**
 * The search engine's memory of one index: document numbers, the filter clauses' document sets and the fields'
 * per-document values, each brought up to date from the index's change log before use. Used only while that
 * log is trusted (always on SQLite; on PostgreSQL while the change feed hears the other processes).
 */
import type { IndexChangeLog } from "../../db/index-changes.ts";
import type { SearchEngineDb } from "../../db/search/index.ts";
import { ChangedValues } from "./changed-values.ts";
import { ClauseCache } from "./clauses.ts";
import { Column } from "./columns.ts";
import { DocNumbers } from "./doc-numbers.ts";

/** Fields whose values are kept at most (the least recently used are let go). */
const MAX_COLUMNS = 64;

export class SearchMemory {
  readonly docs = new DocNumbers();
  readonly clauses: ClauseCache;
  private readonly columns = new Map<string, Column>();
  private readonly changedValues: ChangedValues;

  private readonly log: IndexChangeLog;

  constructor(private readonly db: SearchEngineDb) {
    this.log = db.indexChanges;
    this.clauses = new ClauseCache(db, this.log, this.docs);
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
    else column = new Column(this.db, this.changedValues, this.docs, field);
    this.columns.set(field, column);
    if (this.columns.size > MAX_COLUMNS) {
      const oldest = this.columns.keys().next().value;
      if (oldest !== undefined) this.columns.delete(oldest);
    }
    await column.upTo(this.log);
    return column;
  }
}
