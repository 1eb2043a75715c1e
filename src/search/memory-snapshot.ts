/**
 * The engine's memory saved in the node's data folder, so a restarted node answers from memory without reading
 * it all from the database. Written in the background after the
 * memory was read or a column packed anew; read at start in place of the database read, then brought up to
 * date by noting in the change log the documents changed since the snapshot's change position (migration
 * 0016-search-changes), which the memory rechecks as after any write. A file that is torn, corrupt, of another
 * format version, made against another database, or too far behind (more changed since than the log lists)
 * is ignored with one log line, and the memory is read from the database as before.
 */
import { rm } from "node:fs/promises";
import type { MemoryState, SearchMemory } from "./memory/index.ts";
import {
  decodeMemory,
  encodeMemory,
  type MemoryHeader,
  SNAPSHOT_VERSION,
} from "./memory/snapshot/snapshot-codec.ts";
import { readSnapshotFile, writeSnapshotFile } from "./memory/snapshot/snapshot-file.ts";
import type { SearchEngineDb } from "./store/index.ts";

/** The snapshot's name in the node's data folder. */
export const SEARCH_SNAPSHOT_FILE = "search-memory.snapshot";
/** Documents changed since a snapshot at most for it to be used: as many as the change log lists. */
const MAX_REPLAYED = 50_000;
/**
 * And at most this share of its documents: beyond it, rechecking the changed documents costs a restart more
 * than reading everything (docs/decisions.md, "Search: figures behind the code's choices").
 */
const REPLAYED_SHARE = 1 / 20;
/** After a (re)read or a packing, how long before the snapshot is written (ms). */
const SAVE_AFTER = 10_000;

export interface SnapshotOptions {
  /** The snapshot's file (`search-memory.snapshot` in the data folder). */
  file: string;
  /** One line when a snapshot is ignored or cannot be written. */
  warn: (message: string) => void;
  /** ms after a (re)read or packing before writing (tests). */
  saveAfter?: number;
}

/** Changes a snapshot would carry: the memory's reads and packings. */
const generation = (memory: SearchMemory) => memory.tally.rereads + memory.tally.packings;

export class MemorySnapshots {
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private saving: Promise<void> | undefined;
  private readonly saved = new WeakMap<SearchMemory, number>();

  constructor(
    private readonly db: SearchEngineDb,
    private readonly budget: number,
    private readonly options: SnapshotOptions | undefined,
    private readonly current: () => SearchMemory | undefined,
  ) {}

  /**
   * Fills a new memory from the snapshot and notes what changed since in the log; else only records the
   * position it is read from the database at (before any read: whatever commits later is noted meanwhile).
   */
  async start(memory: SearchMemory): Promise<void> {
    if (this.options && (await this.restore(memory, this.options))) {
      this.saved.set(memory, generation(memory));
      return;
    }
    memory.position = await this.db.search.changePosition();
  }

  /** After the memory was (re)read or packed: a snapshot written in the background, `saveAfter` ms later. */
  consider(memory: SearchMemory): void {
    const options = this.options;
    if (!options || this.timer || generation(memory) === this.saved.get(memory)) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.saving || this.current() !== memory) return;
      this.saving = this.save(memory)
        .catch((error: unknown) => {
          // A write cut short by the node closing (its database gone) is no news.
          if (!this.closed) options.warn(`search memory snapshot not written: ${String(error)}`);
        })
        .finally(() => {
          this.saving = undefined;
        });
    }, options.saveAfter ?? SAVE_AFTER);
    this.timer.unref();
  }

  /**
   * Writes the snapshot now: the documents changed since the memory's position are noted in the log, the
   * memory brought up to date, and the structures reflecting that saved with the new position.
   */
  async save(memory: SearchMemory): Promise<void> {
    const before = memory.position;
    const log = this.db.indexChanges;
    if (!this.options || !before || !log.trusted) return;
    const now = await this.db.search.changePosition();
    if (now.origin !== before.origin) return;
    const changed = await this.db.search.changedSince(before.position, MAX_REPLAYED);
    if ("refused" in changed) log.note(undefined);
    else if (changed.pids.length > 0) log.note(changed.pids);
    const mark = log.seq;
    memory.position = now;
    await memory.refresh();
    const reached = generation(memory);
    const { header, sections } = encodeMemory(memory.saved(mark, now));
    await writeSnapshotFile(this.options.file, header, sections);
    this.saved.set(memory, reached);
  }

  /** Resolves once no snapshot is being written (tests, benchmarks). */
  async settled(): Promise<void> {
    await this.saving;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async restore(memory: SearchMemory, { file, warn }: SnapshotOptions): Promise<boolean> {
    const ignore = (why: string) => {
      warn(`search memory snapshot ${file} ignored (${why}): reading the memory from the database`);
      return false;
    };
    const read = await readSnapshotFile<MemoryHeader>(file, SNAPSHOT_VERSION, this.budget);
    if (read === undefined) return false;
    if ("ignored" in read) return ignore(read.ignored);
    let state: MemoryState;
    try {
      state = await decodeMemory(read);
    } catch (error) {
      return ignore(String(error));
    } finally {
      await read.close();
    }
    const here = await this.db.search.changePosition();
    if (here.origin !== state.origin) return ignore("made against another database");
    const log = this.db.indexChanges;
    // Taken before asking what changed: whatever commits later is noted after it, and rechecked.
    const seq = log.seq;
    const limit = Math.min(MAX_REPLAYED, Math.max(1000, Math.floor(state.pids.length * REPLAYED_SHARE)));
    const changed = await this.db.search.changedSince(state.position, limit);
    if ("refused" in changed) return ignore(changed.refused);
    try {
      await memory.restore(state, seq);
    } catch (error) {
      // The memory may hold part of it: the read fails, and the next one (from the database) starts afresh.
      await rm(file, { force: true });
      throw error;
    }
    if (changed.pids.length > 0) log.note(changed.pids);
    return true;
  }
}
