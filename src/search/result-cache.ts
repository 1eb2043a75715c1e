/**
 * Recent answers, as Solr's query-result cache keeps them: the same parameters from a caller with the same
 * subjects get the same answer until the index changes. An answer belongs to the index change it was computed
 * after (src/db/index-changes.ts, which hears other processes' writes on PostgreSQL); any later change retires
 * it, and nothing is cached or reused while that log is not trusted. Small answers only (up to 1000 documents).
 */
import type { Kysely } from "kysely";
import { indexChangeLog } from "../db/index-changes.ts";
import type { Tables } from "../db/schema.ts";

const MAX_ENTRIES = 256;
const MAX_DOCS = 1000;

interface Entry<T> {
  generation: number;
  value: T;
}

export class ResultCache<T extends { docs: unknown[] }> {
  private readonly entries = new Map<string, Entry<T>>();

  /** The index change an answer computed from now on belongs to (undefined: don't cache it). */
  generation(db: Kysely<Tables>): number | undefined {
    const log = indexChangeLog(db);
    return log.trusted ? log.seq : undefined;
  }

  get(db: Kysely<Tables>, key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.generation !== this.generation(db)) {
      this.entries.delete(key);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value`, computed after index change `generation` (read before the computation began). */
  set(key: string, value: T, generation: number | undefined): void {
    if (generation === undefined || value.docs.length > MAX_DOCS) return;
    this.entries.set(key, { generation, value });
    if (this.entries.size > MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}
