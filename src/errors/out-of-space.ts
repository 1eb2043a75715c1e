/**
 * No room left to write: the filesystem (ENOSPC, or a quota: EDQUOT), SQLite's "database or disk is full", or
 * PostgreSQL's disk_full (53100).
 */
export function isOutOfSpace(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === "ENOSPC" || code === "EDQUOT" || code === "SQLITE_FULL" || code === "53100";
}
