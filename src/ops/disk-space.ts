/**
 * Free space where the node writes: the filesystem of its store folder (`<data folder>/store`, which may be a
 * mount of its own) for a node storing on disk, else of the data folder (the embedded database, staged uploads).
 * Read with statfs: free means what an unprivileged user may still write (`bavail`, as `df` shows it). A node is
 * low on space below LOW_DISK_BYTES or LOW_DISK_FRACTION of its filesystem, whichever says so first.
 */
import { existsSync } from "node:fs";
import { statfs } from "node:fs/promises";
import path from "node:path";
import type { Config } from "../config/config.ts";

/** 1 GiB: less is a day's uploads or a few large objects away from a full disk. */
export const LOW_DISK_BYTES = 1024 ** 3;
/** 5 %: filesystems slow down and fragment when nearly full, whatever their size. */
export const LOW_DISK_FRACTION = 0.05;

export interface DiskSpace {
  /** The folder whose filesystem was measured. */
  folder: string;
  freeBytes: number;
  totalBytes: number;
}

/** The folder whose filesystem the node's bytes go to. */
export function measuredFolder(config: Pick<Config, "dataDir" | "store">): string {
  const store = path.join(config.dataDir, "store");
  return !config.store && existsSync(store) ? store : config.dataDir;
}

/** The filesystem's free and total bytes; undefined when it cannot be read (the folder is gone). */
export async function diskSpace(config: Pick<Config, "dataDir" | "store">): Promise<DiskSpace | undefined> {
  const folder = measuredFolder(config);
  try {
    const s = await statfs(folder);
    return { folder, freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
  } catch {
    return undefined;
  }
}

/** Whether the space is low (LOW_DISK_BYTES, LOW_DISK_FRACTION). */
export function isLow(space: DiskSpace): boolean {
  return space.freeBytes < LOW_DISK_BYTES || space.freeBytes < LOW_DISK_FRACTION * space.totalBytes;
}
