/**
 * The object store on a local filesystem, laid out like DataONE's HashStore: committed bytes live at
 * `objects/ab/cd/abcd…` (their SHA-256 hex, sharded by the first two byte pairs), uploads in progress in
 * `tmp/` (same filesystem, so that commit is a rename), resumable uploads' files in `uploads/` (src/uploads).
 * Identifiers never appear in paths.
 */
import { createHash } from "node:crypto";
import { closeSync, createReadStream, fsync, openSync } from "node:fs";
import { mkdir, opendir, readdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { promisify } from "node:util";
import { algorithmKey, setDigest } from "./algorithms.ts";
import { countedReads } from "./counted-reads.ts";
import { createRemovalHold } from "./removal-hold.ts";
import { SmallReads } from "./small-reads.ts";
import { stageFile } from "./stage.ts";
import type { Digests, ObjectStore, StagedObject } from "./types.ts";
import { directOffset } from "./upload-ring/direct-io.ts";
import { createHasherPool, type HasherPool, type HasherPoolOptions } from "./upload-ring/hasher-pool.ts";
import { SLOTS_IN_FLIGHT } from "./upload-ring/writer.ts";

export interface FsStoreOptions extends HasherPoolOptions {
  /**
   * Uploads shorter than this are hashed on the calling thread (default 128 KiB: below it the thread round
   * trip costs the event loop more than hashing does).
   */
  smallLimit?: number;
  /** Ring slots one upload may hold at once (default 4). */
  maxInFlight?: number;
  /** Bytes of recently read small objects kept in memory for readSmall (default 32 MiB; 0: none). */
  smallCacheBytes?: number;
}

/** Read streams hand out 1 MiB chunks (about twice as fast as the 64 KiB default). */
export const READ_CHUNK = 1 << 20;

const fsyncAsync = promisify(fsync);
const KEY = /^[0-9a-f]{64}$/;
const SHARD = /^[0-9a-f]{2}$/;

export async function createFsStore(root: string, options: FsStoreOptions = {}): Promise<ObjectStore> {
  const objectsDir = path.join(root, "objects");
  const tmpDir = path.join(root, "tmp");
  const uploadsDir = path.join(root, "uploads");
  await mkdir(objectsDir, { recursive: true });
  await mkdir(tmpDir, { recursive: true });
  await mkdir(uploadsDir, { recursive: true });
  const active = new Set<string>();
  const removals = createRemovalHold();
  let pool: HasherPool | undefined;
  let closed = false;

  const settings = {
    tmpDir,
    active,
    smallLimit: options.smallLimit ?? 128 * 1024,
    maxInFlight: options.maxInFlight ?? SLOTS_IN_FLIGHT,
    pool(): HasherPool {
      if (closed) throw new Error("The object store is closed.");
      if (!pool || pool.broken) {
        pool = createHasherPool({ ...options, slotOffset: (buffer) => directOffset(tmpDir, buffer) });
      }
      return pool;
    },
  };

  const pathOf = (key: string): string => {
    if (!KEY.test(key)) {
      throw Object.assign(new Error(`Not a content key: ${JSON.stringify(key)}.`), { code: "INVALID_KEY" });
    }
    return path.join(objectsDir, key.slice(0, 2), key.slice(2, 4), key);
  };
  const smallReads = new SmallReads(options.smallCacheBytes ?? 32 * 1024 * 1024, pathOf);

  /**
   * Rename a temp file into its place. Same key, same bytes: an existing file is simply replaced. The shard
   * folders are made only when the rename finds them missing (not checked before every rename:
   * docs/decisions.md, "Hot paths").
   */
  const place = async (temp: string, key: string): Promise<void> => {
    const target = pathOf(key);
    const dir = path.dirname(target);
    let created: string | undefined;
    try {
      await rename(temp, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      created = await mkdir(dir, { recursive: true });
      await rename(temp, target);
    }
    // New shard folders must be recorded in their parents too. Every entry is in place before the first fsync, so
    // the folders are synced together: their fsyncs share the filesystem's journal commit rather than waiting for
    // one each (a new object in a new shard folder, as most are while a store holds fewer than ~65,536 objects,
    // needs two or three).
    const folders = [dir];
    if (created) {
      for (let d = dir; d.length >= created.length && d !== objectsDir; d = path.dirname(d)) {
        folders.push(path.dirname(d));
      }
    }
    await Promise.all(folders.map(fsyncPath));
  };

  return {
    uploadPlace: { kind: "folder", folder: uploadsDir },

    async stage(source: Readable, stageOptions = {}): Promise<StagedObject> {
      if (closed) throw new Error("The object store is closed.");
      const { path: temp, digests } = await stageFile(settings, source, stageOptions);
      const key = digests.sha256;
      let state: "staged" | "committed" | "discarded" = "staged";
      let committing: Promise<void> | undefined;
      return {
        digests,
        key,
        commit() {
          if (state === "discarded") return Promise.reject(new Error("The staged object was discarded."));
          committing ??= place(temp, key).then(
            () => {
              state = "committed";
              active.delete(path.basename(temp));
            },
            (error: unknown) => {
              committing = undefined;
              throw error;
            },
          );
          return committing;
        },
        read() {
          if (state !== "staged") throw new Error("Staged bytes can only be read before commit.");
          return createReadStream(temp, { highWaterMark: READ_CHUNK });
        },
        async addDigest(algorithm) {
          if (state !== "staged") throw new Error("Digests can only be added before commit.");
          await addDigestOfFile(digests, temp, algorithm);
        },
        async discard() {
          if (state !== "staged" || committing) return;
          state = "discarded";
          await rm(temp, { force: true });
          active.delete(path.basename(temp));
        },
      };
    },

    adopt(file, digests) {
      const key = digests.sha256;
      let committing: Promise<void> | undefined;
      return {
        digests,
        key,
        commit() {
          // Its writes reached the disk directly or through the page cache: made durable before it is named.
          committing ??= fsyncPath(file)
            .then(() => place(file, key))
            .catch((error: unknown) => {
              committing = undefined;
              throw error;
            });
          return committing;
        },
        read: () => createReadStream(file, { highWaterMark: READ_CHUNK }),
        async addDigest(algorithm) {
          if (committing) throw new Error("Digests can only be added before commit.");
          await addDigestOfFile(digests, file, algorithm);
        },
        async discard() {},
      };
    },

    read(key, range) {
      const file = pathOf(key);
      // Opened here so that a missing object throws (ENOENT) before any response starts.
      const fd = openSync(file, "r");
      return createReadStream(file, {
        fd,
        fs: countedReads,
        highWaterMark: READ_CHUNK,
        ...(range ? { start: range.start, end: range.end } : {}),
      });
    },

    readSmall(key, size) {
      return smallReads.read(key, size);
    },

    async has(key) {
      return isFile(pathOf(key));
    },

    async remove(key) {
      const file = pathOf(key);
      if (removals.defer(key)) return;
      smallReads.forget(key);
      await rm(file, { force: true });
      // A read that ran while the file was being removed may have kept its bytes again.
      smallReads.forget(key);
    },

    holdRemovals() {
      return removals.hold();
    },

    async sweepTemp() {
      let removed = 0;
      for (const name of await readdir(tmpDir)) {
        if (active.has(name)) continue;
        await rm(path.join(tmpDir, name), { force: true, recursive: true });
        removed++;
      }
      return removed;
    },

    async *keys() {
      for (const a of await shardNames(objectsDir)) {
        for (const b of await shardNames(path.join(objectsDir, a))) {
          const dir = await opendir(path.join(objectsDir, a, b)).catch(ignoreMissing);
          if (!dir) continue;
          for await (const entry of dir) {
            const key = entry.name;
            if (entry.isFile() && KEY.test(key) && key.startsWith(a + b)) yield key;
          }
        }
      }
    },

    async close() {
      closed = true;
      smallReads.clear();
      await pool?.close();
    },
  };
}

/** One more digest over a file's bytes (an algorithm not computed as they arrived), recorded in `digests`. */
async function addDigestOfFile(digests: Digests, file: string, algorithm: string): Promise<void> {
  const hashKey = algorithmKey(algorithm);
  if (!hashKey) {
    throw Object.assign(new Error(`Unknown algorithm ${algorithm}.`), { code: "UNSUPPORTED_ALGORITHM" });
  }
  const hash = createHash(hashKey);
  for await (const chunk of createReadStream(file, { highWaterMark: READ_CHUNK })) hash.update(chunk);
  setDigest(digests, hashKey, hash.digest("hex"));
}

async function isFile(file: string): Promise<boolean> {
  const info = await stat(file).catch(ignoreMissing);
  return info?.isFile() ?? false;
}

async function shardNames(dir: string): Promise<string[]> {
  const entries = (await readdir(dir, { withFileTypes: true }).catch(ignoreMissing)) ?? [];
  return entries.filter((e) => e.isDirectory() && SHARD.test(e.name)).map((e) => e.name);
}

/** Opening and closing a folder or file are quick in place; the fsync goes to the thread pool. */
async function fsyncPath(target: string): Promise<void> {
  const fd = openSync(target, "r");
  try {
    await fsyncAsync(fd);
  } finally {
    closeSync(fd);
  }
}

function ignoreMissing(error: unknown): undefined {
  if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
  throw error;
}
