/**
 * One node's search engine state: the index change log (kept by the database, which notes every index write
 * and, on PostgreSQL, other processes' writes), the engine's memory (memory/) and the cache of results and
 * answers (search-cache.ts). Opened with the node, carried on its context (`ctx.search`), closed with it.
 */
import type { IndexChangeLog } from "../db/index-changes.ts";
import type { SearchEngineDb } from "../db/search/index.ts";
import { SearchMemory } from "./memory/index.ts";
import type { SqlDialect } from "./query-sql.ts";
import { SearchCache } from "./search-cache.ts";

export class SearchIndex {
  readonly db: SearchEngineDb;
  readonly dialect: SqlDialect;
  readonly changes: IndexChangeLog;
  readonly cache: SearchCache;
  private kept: SearchMemory | undefined;

  constructor(database: SearchEngineDb) {
    this.db = database;
    this.dialect = database.dialect;
    this.changes = database.indexChanges;
    this.cache = new SearchCache(this.changes);
  }

  /** The engine's memory, or undefined while the change log cannot be trusted. */
  memory(): SearchMemory | undefined {
    if (!this.changes.trusted) return undefined;
    this.kept ??= new SearchMemory(this.db);
    return this.kept;
  }

  /** Lets go of the memory and the cache. */
  close(): void {
    this.kept = undefined;
    this.cache.clear();
  }
}

export function openSearchIndex(database: SearchEngineDb): SearchIndex {
  return new SearchIndex(database);
}
