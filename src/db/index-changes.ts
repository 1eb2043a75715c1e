/**
 * What changed in the search index, in order: the search engine's in-memory structures (src/search/memory)
 * bring themselves up to date from it. Every index write notes the PIDs it rewrote once it has committed; on
 * PostgreSQL it also announces them to the other processes (the change feed's index channel), whose feeds note
 * them here. While a feed cannot hear, the log is not trusted and the engine answers from the database alone.
 * One per open database (`Database.indexChanges`, made by `openDatabase`).
 */
import type { Kysely } from "kysely";
import type { Tables } from "./schema.ts";

/** PIDs remembered at most; a reader further behind than that rereads everything. */
const MAX_REMEMBERED = 50_000;

export type Announce = (tx: Kysely<Tables>, pids: readonly string[]) => Promise<void>;

export class IndexChangeLog {
  /** Number of the latest change. */
  seq = 0;
  /** Whether every committed change is noted here (false while a PostgreSQL feed cannot hear). */
  trusted = true;
  /** Within an index write (PostgreSQL): tells the other processes on commit. */
  announce: Announce | undefined;
  private entries: { seq: number; pids: readonly string[] }[] = [];
  private remembered = 0;
  /** Changes up to this one are not listed (everything may have changed). */
  private floor = 0;
  private readonly listeners = new Set<() => void>();

  /** Calls `listener` after each noted change; the function returned stops that. */
  onNote(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** These documents were rewritten or removed (undefined: any may have been). */
  note(pids: readonly string[] | undefined): void {
    this.remember(pids);
    for (const listener of this.listeners) listener();
  }

  private remember(pids: readonly string[] | undefined): void {
    this.seq++;
    if (pids === undefined) {
      this.entries = [];
      this.remembered = 0;
      this.floor = this.seq;
      return;
    }
    this.entries.push({ seq: this.seq, pids });
    this.remembered += pids.length;
    while (this.remembered > MAX_REMEMBERED && this.entries.length > 0) {
      const dropped = this.entries.shift() as { seq: number; pids: readonly string[] };
      this.remembered -= dropped.pids.length;
      this.floor = dropped.seq;
    }
  }

  /** The PIDs changed after change `seq`, or "everything" when they are not all listed. */
  changedSince(seq: number): Set<string> | "everything" {
    if (seq < this.floor) return "everything";
    const out = new Set<string>();
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i] as { seq: number; pids: readonly string[] };
      if (entry.seq <= seq) break;
      for (const pid of entry.pids) out.add(pid);
    }
    return out;
  }

  trust(heard: boolean): void {
    // Whatever was written while nobody listened is unknown.
    if (heard && !this.trusted) this.note(undefined);
    this.trusted = heard;
  }
}
