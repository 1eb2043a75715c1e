/**
 * Recent answers, as Solr's query-result cache keeps them: the same parameters from a caller with the same
 * subjects get the same answer until the index changes. Every index write in this process bumps the index's
 * generation, which empties the cache; on PostgreSQL, where other processes may write the same index, an answer
 * is also reused for at most one second ("searchable within 1 s"). Small answers only (up to 1000 documents).
 */
import type { Kysely } from "kysely";
import type { Tables } from "../db/schema.ts";

const MAX_ENTRIES = 256;
const MAX_DOCS = 1000;

interface Entry<T> {
  generation: number;
  at: number;
  value: T;
}

const generations = new WeakMap<Kysely<Tables>, { n: number }>();

/** Called by every index write. */
export function indexChanged(db: Kysely<Tables>): void {
  const g = generations.get(db);
  if (g) g.n++;
  else generations.set(db, { n: 1 });
}

function generationOf(db: Kysely<Tables>): number {
  return generations.get(db)?.n ?? 0;
}

export class ResultCache<T extends { docs: unknown[] }> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly maxAgeMs: number) {}

  get(db: Kysely<Tables>, key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.generation !== generationOf(db) || Date.now() - entry.at > this.maxAgeMs) {
      this.entries.delete(key);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(db: Kysely<Tables>, key: string, value: T): void {
    if (value.docs.length > MAX_DOCS) return;
    this.entries.set(key, { generation: generationOf(db), at: Date.now(), value });
    if (this.entries.size > MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}
