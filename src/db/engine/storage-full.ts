/**
 * A database whose storage is full: SQLite's SQLITE_FULL ("database or disk is full": the disk, or the file's
 * max_page_count), PostgreSQL's disk_full (SQLSTATE 53100), the system's ENOSPC. A bulk write stops at the first
 * one instead of trying each object in turn: each would fail the same way, and log it.
 */
const FULL_CODES = new Set(["SQLITE_FULL", "53100", "ENOSPC"]);

/** The error's code: a driver's, the system's, or one a rebuild's thread sent back with its message. */
export function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

export function isStorageFull(error: unknown): boolean {
  return FULL_CODES.has(codeOf(error) ?? "");
}

/** What an operator reads when a bulk write stops there. */
export function storageFullMessage(error: unknown): string {
  return `the database's storage is full (${(error as Error).message}): free space, then run it again (it goes on from where it stopped)`;
}
