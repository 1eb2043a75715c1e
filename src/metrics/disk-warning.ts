/** The start-up warning of a node on little free disk space (the rule is src/ops/disk-space.ts's isLow). */
import { type DiskSpace, isLow } from "../ops/disk-space.ts";
import { formatBytes } from "./format.ts";

/** The one line a node starting on low space prints; undefined when there is enough. */
export function lowDiskWarning(space: DiskSpace | undefined): string | undefined {
  if (!space || !isLow(space)) return undefined;
  const percent = space.totalBytes > 0 ? ((100 * space.freeBytes) / space.totalBytes).toFixed(1) : "0";
  return `little free disk space for ${space.folder}: ${formatBytes(space.freeBytes)} of ${formatBytes(space.totalBytes)} free (${percent} %); uploads fail with InsufficientResources when it is full`;
}
