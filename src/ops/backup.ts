/**
 * Backup and restore of a node on the embedded (SQLite) database: a consistent copy of the database (the online
 * backup API, while the node serves) and the content files its objects reference, and the way back.
 *
 * A backup folder holds `d1node.sqlite`, `store/objects/..` (the same layout as the data folder), `keys/` (the
 * token-signing key) and, written last, `BACKUP.json`: a folder without it is an unfinished backup.
 * Bytes are always in the store before their object's row is committed, so every object of the snapshot has its
 * bytes; removals of bytes are held while the backup copies them, so none of the snapshot's disappears meanwhile.
 *
 * Each content file is hashed as it is copied (its name is its SHA-256): a file whose bytes differ is still
 * copied, and one that is absent skipped, and both are named in the manifest (`damaged`) with the PIDs of their
 * objects. Copy and report rather than refuse: a backup that stopped at one bad file would leave the node with no
 * backup of all its good bytes; the operator repairs the named objects and backs up again (decisions.md).
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { copyFile, cp, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { contentOfSnapshot, pidsOfContent } from "../db/engine/snapshot.ts";
import type { Database } from "../db/types.ts";
import type { KeyedMutex } from "../objects/keyed-mutex.ts";
import type { ObjectStore } from "../store/types.ts";

export const MANIFEST = "BACKUP.json";
export const DATABASE_FILE = "d1node.sqlite";

export interface BackupManifest {
  format: 1;
  /** When the database copy was complete: every write acknowledged before then is in the backup. */
  snapshotAt: string;
  finishedAt: string;
  objects: number;
  contentFiles: number;
  bytes: number;
  /** Content files whose bytes were not their SHA-256 (copied as found) or were absent (not copied). */
  damaged?: DamagedContent[];
}

export interface DamagedContent {
  contentKey: string;
  kind: "digest" | "missing";
  /** The objects whose bytes these are. */
  pids: string[];
  detail: string;
}

export interface BackupSources {
  db: Database;
  store: ObjectStore;
  /** Serialises removals with new writes of the same bytes (the node's own). */
  contentLocks?: KeyedMutex;
  dataDir: string;
}

export interface CopyProgress {
  files: number;
  totalFiles: number;
  bytes: number;
  totalBytes: number;
}

/** Thrown for an operator's mistake (a folder in the way, a missing backup): its message is the whole story. */
export class BackupRefused extends Error {}

export async function backupNode(
  sources: BackupSources,
  dir: string,
  onProgress?: (progress: Readonly<CopyProgress>) => void,
): Promise<BackupManifest> {
  await emptyFolder(dir, "backup folder");
  const release = sources.store.holdRemovals();
  try {
    await sources.db.snapshotTo(path.join(dir, DATABASE_FILE));
    const snapshotAt = new Date();
    const database = path.join(dir, DATABASE_FILE);
    const content = contentOfSnapshot(database);
    const bad = await copyContent(sources.dataDir, dir, content.keys, content.bytes, onProgress);
    await copyKeys(sources.dataDir, dir);
    const manifest: BackupManifest = {
      format: 1,
      snapshotAt: snapshotAt.toISOString(),
      finishedAt: new Date().toISOString(),
      objects: content.objects,
      contentFiles: content.keys.length,
      bytes: content.bytes,
      ...(bad.length > 0
        ? { damaged: bad.map((b) => ({ ...b, pids: pidsOfContent(database, b.contentKey) })) }
        : {}),
    };
    await writeDurably(path.join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    return manifest;
  } finally {
    await removeHeld(sources, release());
  }
}

/** Removals held during the copy, now done, unless an object took the bytes back meanwhile. */
async function removeHeld(sources: BackupSources, keys: string[]): Promise<void> {
  for (const key of keys) {
    const remove = async () => {
      if ((await sources.db.objects.countByContentKey(key)) === 0) await sources.store.remove(key);
    };
    await (sources.contentLocks ? sources.contentLocks.run(key, remove) : remove());
  }
}

/** Restores a backup into an empty data folder (the node stopped); the caller audits the result. */
export async function restoreNode(
  dir: string,
  dataDir: string,
  onProgress?: (progress: Readonly<CopyProgress>) => void,
): Promise<BackupManifest> {
  const manifest = await readManifest(dir);
  await emptyFolder(dataDir, "data folder", ["store", "keys"]);
  const content = contentOfSnapshot(path.join(dir, DATABASE_FILE));
  // What the backup found absent is absent here too (the audit that follows names it); nothing else may be.
  const absent = new Set(
    (manifest.damaged ?? []).filter((d) => d.kind === "missing").map((d) => d.contentKey),
  );
  const bad = await copyContent(dir, dataDir, content.keys, content.bytes, onProgress);
  const lost = bad.find((b) => b.kind === "missing" && !absent.has(b.contentKey));
  if (lost) throw new BackupRefused(`the backup ${dir} lacks the content file ${lost.contentKey}`);
  await copyKeys(dir, dataDir);
  // The database last: a data folder with a database is a node; without one, an unfinished restore.
  const partial = path.join(dataDir, `${DATABASE_FILE}.partial`);
  await copyFile(path.join(dir, DATABASE_FILE), partial);
  await fsyncFile(partial);
  await rename(partial, path.join(dataDir, DATABASE_FILE));
  return manifest;
}

export async function readManifest(dir: string): Promise<BackupManifest> {
  let text: string;
  try {
    text = await readFile(path.join(dir, MANIFEST), "utf8");
  } catch {
    throw new BackupRefused(`${dir} is not a complete backup (no ${MANIFEST})`);
  }
  return JSON.parse(text) as BackupManifest;
}

/** Missing or empty (besides `allowed` entries, themselves empty folders), else refused. */
async function emptyFolder(dir: string, what: string, allowed: string[] = []): Promise<void> {
  const entries = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });
  for (const entry of entries) {
    const inner = allowed.includes(entry) ? await readdir(path.join(dir, entry), { recursive: true }) : [];
    const files = [];
    for (const name of inner) {
      if ((await stat(path.join(dir, entry, name))).isFile()) files.push(name);
    }
    if (!allowed.includes(entry) || files.length > 0) {
      throw new BackupRefused(`the ${what} ${dir} is not empty (holds ${entry})`);
    }
  }
  await mkdir(dir, { recursive: true });
}

/** A content file's path; `key` (read from a database copy) must be a SHA-256 in hex, never a path. */
const objectPath = (root: string, key: string) => {
  if (!/^[0-9a-f]{64}$/.test(key)) {
    throw new BackupRefused(`the database copy names ${JSON.stringify(key.slice(0, 80))} as a content key`);
  }
  return path.join(root, "store", "objects", key.slice(0, 2), key.slice(2, 4), key);
};

/**
 * Copies each content file, hashing it on the way, synced to disk; returns the files that are not their SHA-256
 * (copied all the same) or are absent (skipped).
 */
async function copyContent(
  fromRoot: string,
  toRoot: string,
  keys: readonly string[],
  totalBytes: number,
  onProgress?: (progress: Readonly<CopyProgress>) => void,
): Promise<Omit<DamagedContent, "pids">[]> {
  const progress: CopyProgress = { files: 0, totalFiles: keys.length, bytes: 0, totalBytes };
  const made = new Set<string>();
  const bad: Omit<DamagedContent, "pids">[] = [];
  for (const key of keys) {
    const target = objectPath(toRoot, key);
    const folder = path.dirname(target);
    if (!made.has(folder)) {
      await mkdir(folder, { recursive: true });
      made.add(folder);
    }
    const sha256 = await copyHashing(objectPath(fromRoot, key), target);
    if (sha256 === undefined) {
      bad.push({ contentKey: key, kind: "missing", detail: "the stored bytes are absent" });
    } else {
      if (sha256 !== key) {
        bad.push({ contentKey: key, kind: "digest", detail: `SHA-256 of the stored bytes is ${sha256}` });
      }
      progress.bytes += await fsyncFile(target);
    }
    progress.files++;
    onProgress?.(progress);
  }
  for (const folder of made) await fsyncFile(folder);
  return bad;
}

/** Copies `from` to `to` in one read, returning the SHA-256 of what was copied (undefined: `from` is absent). */
async function copyHashing(from: string, to: string): Promise<string | undefined> {
  const hash = createHash("sha256");
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(createReadStream(from), hashing, createWriteStream(to));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT" || (error as { path?: string }).path !== from)
      throw error;
    await rm(to, { force: true });
    return undefined;
  }
  return hash.digest("hex");
}

async function copyKeys(fromRoot: string, toRoot: string): Promise<void> {
  const from = path.join(fromRoot, "keys");
  if (!(await stat(from).catch(() => undefined))) return;
  await cp(from, path.join(toRoot, "keys"), { recursive: true, force: true, preserveTimestamps: true });
}

async function writeDurably(file: string, text: string): Promise<void> {
  await writeFile(`${file}.partial`, text);
  await fsyncFile(`${file}.partial`);
  await rename(`${file}.partial`, file);
  await fsyncFile(path.dirname(file));
}

/** fsync a file or folder; returns its size. */
async function fsyncFile(file: string): Promise<number> {
  const handle = await open(file, "r");
  try {
    await handle.sync();
    return (await handle.stat()).size;
  } finally {
    await handle.close();
  }
}
