/**
 * Repair from a backup: for a standalone node (no federation to fetch a replica from), the fixity audit takes a
 * bad or missing object's bytes from a folder written by `d1node backup`, where content files have the data
 * folder's layout (`store/objects/ab/cd/<sha256>`). The file is staged and committed exactly as a replica's bytes
 * are (`replaceWith`, src/ops/repair.ts): only when its SHA-256, size and the system metadata's checksum are what
 * this node recorded. A backup that lacks the file, or holds bad bytes for it too, repairs nothing.
 */
import { open } from "node:fs/promises";
import path from "node:path";
import type { RepairBytes } from "./audit.ts";
import { readManifest } from "./backup.ts";
import { type RepairSources, replaceWith } from "./repair.ts";

/** A repair hook reading from the backup folder `dir` (refused at once when it is not a complete backup). */
export async function repairFromBackup(dir: string, sources: RepairSources): Promise<RepairBytes> {
  await readManifest(dir);
  return async (object) => {
    const key = object.contentKey;
    const file = path.join(dir, "store", "objects", key.slice(0, 2), key.slice(2, 4), key);
    try {
      // Opened before any stream exists: a copy the backup lacks is an answer here, never a stream's late error.
      const handle = await open(file);
      if (await replaceWith(sources, object, handle.createReadStream())) return true;
      sources.onSkip?.(object.pid, "the backup", "its copy differs from the recorded digests");
    } catch (error) {
      const why = (error as NodeJS.ErrnoException).code === "ENOENT" ? "it holds no copy" : String(error);
      sources.onSkip?.(object.pid, "the backup", why);
    }
    return false;
  };
}
