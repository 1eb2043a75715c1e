/**
 * Progress of an import on standard error: on a terminal one line redrawn in place (a bar, objects, bytes, rates,
 * ETA), otherwise a plain line per listed page and at most one every few seconds, for logs. The numbers are
 * counted by the run; this only shows them.
 */

export interface ImportCounts {
  /** Listed objects handled so far (copied, updated, unchanged or failed). */
  done: number;
  /** Objects the source lists in all (an estimate while listing: what is done plus what remains). */
  total: number;
  copied: number;
  updated: number;
  unchanged: number;
  failed: number;
  /** Bytes received. */
  bytes: number;
}

export interface ProgressView {
  update(counts: Readonly<ImportCounts>, force?: boolean): void;
  /** Leaves the last state on screen, followed by a line break. */
  finish(counts: Readonly<ImportCounts>): void;
  /** A message on a line of its own (the bar is drawn again after it). */
  note(message: string): void;
}

const MIB = 1024 * 1024;
const BAR_WIDTH = 24;
/** Plain lines at most this often, besides one per listed page. */
const PLAIN_INTERVAL_MS = 5000;
/** The bar is redrawn at most this often. */
const TTY_INTERVAL_MS = 200;

export function progressView(stream: NodeJS.WriteStream, startedAt = Date.now()): ProgressView {
  const tty = stream.isTTY === true;
  let shown = 0;
  let drawn = false;
  /** The counts of the last plain line (a line with the same counts is not written again). */
  let lastCounts = "";
  const plain = (c: Readonly<ImportCounts>) => {
    const counts = JSON.stringify(c);
    if (counts !== lastCounts) stream.write(`import: ${describe(c)}\n`);
    lastCounts = counts;
  };
  const describe = (c: Readonly<ImportCounts>) => {
    const seconds = Math.max((Date.now() - startedAt) / 1000, 0.001);
    const rate = c.done / seconds;
    const remaining = Math.max(c.total - c.done, 0);
    const eta = rate > 0 && remaining > 0 ? ` ETA ${duration(remaining / rate)}` : "";
    return (
      `${c.done}/${c.total} objects (${c.copied} copied, ${c.updated} updated, ${c.unchanged} unchanged, ` +
      `${c.failed} failed), ${(c.bytes / MIB).toFixed(1)} MiB, ${rate.toFixed(1)} objects/s, ` +
      `${(c.bytes / MIB / seconds).toFixed(2)} MiB/s${eta}`
    );
  };
  const draw = (c: Readonly<ImportCounts>) => {
    const share = c.total > 0 ? Math.min(c.done / c.total, 1) : 0;
    const filled = Math.round(share * BAR_WIDTH);
    const bar = `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${Math.floor(share * 100)}%`;
    const line = `${bar} ${describe(c)}`;
    const width = stream.columns ?? 120;
    stream.write(`\r${line.slice(0, width - 1)}\x1b[K`);
    drawn = true;
  };
  return {
    update(counts, force = false) {
      const now = Date.now();
      if (now - shown < (tty ? TTY_INTERVAL_MS : PLAIN_INTERVAL_MS) && !force) return;
      shown = now;
      if (tty) draw(counts);
      else plain(counts);
    },
    finish(counts) {
      if (tty) {
        draw(counts);
        stream.write("\n");
      } else plain(counts);
      drawn = false;
    },
    note(message) {
      if (tty && drawn) stream.write("\r\x1b[K");
      stream.write(`${message}\n`);
      drawn = false;
    },
  };
}

function duration(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}
