/**
 * An in-memory structure derived from the index, kept up to date from the change log: read whole the first
 * time (or when the log no longer lists what changed, or too much did), else rechecked for just the changed
 * documents. One refresh at a time; a caller waits for the state as of its own start, or newer.
 */
import type { IndexChangeLog } from "../../db/index-changes.ts";

/** More changed documents than this: read the whole structure again. */
const RECHECK_AT_MOST = 5000;

export abstract class Refreshing {
  /** The change this structure reflects (-1: not read yet). */
  private seq = -1;
  private pending: Promise<void> | undefined;

  protected abstract reread(): Promise<void>;
  protected abstract recheck(changed: string[]): Promise<void>;

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
    if (changed === "everything" || changed.size > RECHECK_AT_MOST) await this.reread();
    else if (changed.size > 0) await this.recheck([...changed]);
    this.seq = seq;
  }
}
