/**
 * Recent results and answers, as Solr's query-result cache keeps them: the same parameters from a caller with
 * the same subjects get the same result until the index changes. Two kinds are kept: results
 * (`search`, what CNRead.search lists) and serialized answers (`runQuery`, Solr JSON or XML, answer-cache.ts),
 * each its own least-recently-used list of at most 256 entries and `maxBytes` bytes (the search page with
 * `facet.limit=-1` is megabytes at millions of documents: 256 of them would be gigabytes beside the engine's
 * memory, and garbage for V8 to mark). An entry belongs to the index change it was computed after (the index
 * change log, which hears other processes' writes on PostgreSQL); any later change retires it, and nothing is
 * cached or reused while that log is not trusted. Small ones only (up to 1000 documents, a quarter of the bytes).
 */
import type { IndexChangeLog } from "../../db/index-changes.ts";

const MAX_ENTRIES = 256;
const MAX_DOCS = 1000;
/** Bytes each kind keeps by default (the engine gives 1/16 of its memory budget: search-index.ts). */
export const DEFAULT_CACHE_BYTES = 64 * 2 ** 20;

interface Entry {
  generation: number;
  value: { docs: unknown[] };
  bytes: number;
}

interface Kind {
  entries: Map<string, Entry>;
  bytes: number;
}

export type CacheKind = "result" | "answer";

export class SearchCache {
  private readonly kinds: Record<CacheKind, Kind> = {
    result: { entries: new Map(), bytes: 0 },
    answer: { entries: new Map(), bytes: 0 },
  };

  constructor(
    private readonly log: IndexChangeLog,
    /** Most bytes each kind keeps (as its entries were counted when kept). */
    readonly maxBytes = DEFAULT_CACHE_BYTES,
  ) {}

  /** The index change a value computed from now on belongs to (undefined: don't cache it). */
  generation(): number | undefined {
    return this.log.trusted ? this.log.seq : undefined;
  }

  get<T extends { docs: unknown[] }>(kind: CacheKind, key: string): T | undefined {
    const held = this.kinds[kind];
    const entry = held.entries.get(key);
    if (!entry) return undefined;
    this.drop(held, key, entry);
    if (entry.generation !== this.generation()) return undefined;
    this.keep(held, key, entry);
    return entry.value as T;
  }

  /**
   * Keeps `value` (about `bytes` bytes), computed after index change `generation` (read before the computation
   * began); the least recently used entries of its kind go while there are too many or their bytes are too many.
   */
  set(
    kind: CacheKind,
    key: string,
    value: { docs: unknown[] },
    generation: number | undefined,
    bytes: number,
  ): void {
    if (generation === undefined || value.docs.length > MAX_DOCS || bytes > this.maxBytes / 4) return;
    const held = this.kinds[kind];
    const old = held.entries.get(key);
    if (old) this.drop(held, key, old);
    this.keep(held, key, { generation, value, bytes });
    for (const [oldest, entry] of held.entries) {
      if (held.entries.size <= MAX_ENTRIES && held.bytes <= this.maxBytes) break;
      this.drop(held, oldest, entry);
    }
  }

  /** The entries and bytes a kind keeps now. */
  held(kind: CacheKind): { entries: number; bytes: number } {
    const held = this.kinds[kind];
    return { entries: held.entries.size, bytes: held.bytes };
  }

  /** Forgets everything kept. */
  clear(): void {
    for (const held of Object.values(this.kinds)) {
      held.entries.clear();
      held.bytes = 0;
    }
  }

  private keep(held: Kind, key: string, entry: Entry): void {
    held.entries.set(key, entry);
    held.bytes += entry.bytes;
  }

  private drop(held: Kind, key: string, entry: Entry): void {
    held.entries.delete(key);
    held.bytes -= entry.bytes;
  }
}
