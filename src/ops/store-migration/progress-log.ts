/**
 * The durable record of a store migration (`store-migration.log` in the data folder): a first line naming the
 * source and the target, then one content key per line, each written once its bytes are in the target and their
 * SHA-256 was checked. Lines are flushed and fsynced once a second and at the end, so a crash loses at most the
 * last second of them; a key whose line was lost is found in the target by the next run and verified again (read
 * back and hashed), never trusted unread. A line `-<key>` takes a key back (its bytes were removed from the
 * target again). A torn last line is ignored.
 */
import { createReadStream } from "node:fs";
import { type FileHandle, open, rename, rm } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";

export const PROGRESS_LOG = "store-migration.log";

const KEY = /^[0-9a-f]{64}$/;
const FLUSH_MS = 1000;

export interface MigrationEnds {
  /** Where the bytes come from and go to, as the operator named them. */
  from: string;
  to: string;
}

export interface ProgressLog {
  /** Keys already copied and verified (by this run or an earlier one for the same source and target). */
  readonly done: ReadonlySet<string>;
  /** Whether the log continues an earlier run's. */
  readonly resumed: boolean;
  /** Notes a key whose bytes are in the target, verified; written to disk within a second. */
  record(key: string): void;
  /** Notes a key whose bytes were removed from the target again (a line `-<key>`). */
  forget(key: string): void;
  /** Writes and fsyncs what is noted, and stops. */
  close(): Promise<void>;
  /** Closes and deletes the log (the migration is over). */
  remove(): Promise<void>;
}

export async function openProgressLog(dataDir: string, ends: MigrationEnds): Promise<ProgressLog> {
  const file = path.join(dataDir, PROGRESS_LOG);
  const header = JSON.stringify({ from: ends.from, to: ends.to });
  const done = new Set<string>();
  const resumed = (await readLog(file, done)) === header;
  let handle: FileHandle;
  let pending: string[] = [];
  if (resumed) {
    handle = await open(file, "a+");
    // A line torn by a crash is ended first, so that the next key starts a line of its own.
    const { size } = await handle.stat();
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    if (last[0] !== 0x0a) pending.push("");
  } else {
    // A log of another migration (other source or target) says nothing about this one: start afresh.
    done.clear();
    const fresh = `${file}.new`;
    handle = await open(fresh, "w");
    await handle.writeFile(`${header}\n`);
    await handle.sync();
    await rename(fresh, file);
  }
  let writing: Promise<void> = Promise.resolve();
  let failure: unknown;
  const flush = () => {
    if (pending.length === 0) return writing;
    const lines = `${pending.join("\n")}\n`;
    pending = [];
    writing = writing.then(async () => {
      try {
        await handle.write(lines);
        await handle.datasync();
      } catch (error) {
        failure ??= error;
      }
    });
    return writing;
  };
  const timer = setInterval(flush, FLUSH_MS);
  timer.unref();
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    await flush();
    await handle.close();
    if (failure) throw failure;
  };
  return {
    done,
    resumed,
    record(key) {
      if (failure) throw failure;
      done.add(key);
      pending.push(key);
    },
    forget(key) {
      if (failure) throw failure;
      done.delete(key);
      pending.push(`-${key}`);
    },
    close,
    async remove() {
      await close();
      await rm(file, { force: true });
    },
  };
}

/** The header line of an existing log (undefined: none), its keys added to `keys`. */
async function readLog(file: string, keys: Set<string>): Promise<string | undefined> {
  let header: string | undefined;
  try {
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) {
      if (header === undefined) header = line;
      else if (KEY.test(line)) keys.add(line);
      else if (line.startsWith("-")) keys.delete(line.slice(1));
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  return header;
}
