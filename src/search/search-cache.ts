/**
 * Recent results and answers, as Solr's query-result cache keeps them: the same parameters from a caller with
 * the same subjects get the same result until the index changes. Two kinds are kept: results
 * (`search`, what CNRead.search lists) and serialized answers (`runQuery`, Solr JSON or XML, answer-cache.ts),
 * each its own least-recently-used list of 256. An entry belongs to the index change it was computed after (the
 * index change log, which hears other processes' writes on PostgreSQL); any later change retires it, and
 * nothing is cached or reused while that log is not trusted. Small ones only (up to 1000 documents).
 */
import type { IndexChangeLog } from "../db/index-changes.ts";

const MAX_ENTRIES = 256;
const MAX_DOCS = 1000;

interface Entry {
  generation: number;
  value: { docs: unknown[] };
}

export type CacheKind = "result" | "answer";

export class SearchCache {
  private readonly kinds: Record<CacheKind, Map<string, Entry>> = { result: new Map(), answer: new Map() };

  constructor(private readonly log: IndexChangeLog) {}

  /** The index change a value computed from now on belongs to (undefined: don't cache it). */
  generation(): number | undefined {
    return this.log.trusted ? this.log.seq : undefined;
  }

  get<T extends { docs: unknown[] }>(kind: CacheKind, key: string): T | undefined {
    const entries = this.kinds[kind];
    const entry = entries.get(key);
    if (!entry) return undefined;
    entries.delete(key);
    if (entry.generation !== this.generation()) return undefined;
    entries.set(key, entry);
    return entry.value as T;
  }

  /** Keeps `value`, computed after index change `generation` (read before the computation began). */
  set(kind: CacheKind, key: string, value: { docs: unknown[] }, generation: number | undefined): void {
    if (generation === undefined || value.docs.length > MAX_DOCS) return;
    const entries = this.kinds[kind];
    entries.set(key, { generation, value });
    if (entries.size > MAX_ENTRIES) {
      const oldest = entries.keys().next().value;
      if (oldest !== undefined) entries.delete(oldest);
    }
  }

  /** Forgets everything kept. */
  clear(): void {
    for (const entries of Object.values(this.kinds)) entries.clear();
  }
}
