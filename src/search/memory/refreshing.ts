/**
 * A structure derived from the index, kept up to date from the change log: read whole the first time (or when
 * the log no longer lists what changed), else rechecked for just the changed documents, however many (their
 * rows read in batches: src/search/store/memory-reads.ts), so a burst of writes costs the next query a read of
 * what they changed, never a read of everything. The log lists 50,000 documents at most
 * (src/db/index-changes.ts), which bounds a recheck. One refresh at a time; a caller waits for the state as of
 * its own start, or newer.
 */
import type { IndexChangeLog } from "../../db/index-changes.ts";

/** How often the engine's structures were read whole, and rechecked (for the tests and the metrics). */
export interface ReadTally {
  rereads: number;
  rechecks: number;
  /** Columns packed anew (their rewritten documents folded in). */
  packings: number;
}

export abstract class Refreshing {
  /** The change this structure reflects (-1: not read yet). */
  private seq = -1;
  private pending: Promise<void> | undefined;

  constructor(protected readonly readTally: ReadTally) {}

  protected abstract reread(): Promise<void>;
  protected abstract recheck(changed: string[]): Promise<void>;

  /** Whether changes were noted since this structure was brought up to date. */
  behind(log: IndexChangeLog): boolean {
    return this.seq < log.seq;
  }

  /** Whether this structure reflects every change of the log up to change `seq`. */
  reflects(seq: number): boolean {
    return this.seq >= seq;
  }

  /** Takes this structure as reflecting the log up to change `seq` (restored from a snapshot made then). */
  protected restoredAt(seq: number): void {
    this.seq = seq;
  }

  async upTo(log: IndexChangeLog): Promise<void> {
    const wanted = log.seq;
    while (this.seq < wanted) {
      if (!this.pending) {
        this.pending = this.refresh(log).finally(() => {
          this.pending = undefined;
        });
      }
      await this.pending;
    }
  }

  private async refresh(log: IndexChangeLog): Promise<void> {
    // Taken before reading: whatever is noted while the database answers is rechecked next time.
    const seq = log.seq;
    const changed = this.seq < 0 ? "everything" : log.changedSince(this.seq);
    if (changed === "everything") {
      await this.reread();
      this.readTally.rereads++;
    } else if (changed.size > 0) {
      await this.recheck([...changed]);
      this.readTally.rechecks++;
    }
    this.seq = seq;
  }
}
