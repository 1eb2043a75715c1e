/**
 * Consistent copies of an embedded (SQLite) database while the node serves, and what a copy holds. The copy is
 * made by SQLite's online backup API on the node's own connection: "If the source database is modified [...]
 * using the same database connection as is used by the backup operation, then the backup database is
 * automatically updated at the same time", so the copy is the database as it stands when the backup ends (the
 * snapshot point), with every write committed before then.
 */
import { rename, rm } from "node:fs/promises";
import SQLite from "better-sqlite3";

/** Copies the database to `file` (written beside it first, then renamed into place). */
export async function sqliteSnapshot(handle: SQLite.Database, file: string): Promise<void> {
  const partial = `${file}.partial`;
  await rm(partial, { force: true });
  await handle.backup(partial);
  // One self-contained file: the copy keeps the node's WAL mode, which a reader would give -wal and -shm files.
  const copy = new SQLite(partial);
  try {
    copy.pragma("journal_mode = DELETE");
  } finally {
    copy.close();
  }
  await rename(partial, file);
}

/** The content keys a database copy references, and how many objects it holds. */
export function contentOfSnapshot(file: string): { objects: number; keys: string[]; bytes: number } {
  const copy = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const count = copy.prepare("select count(*) as n from objects").get() as { n: number };
    const rows = copy
      .prepare("select content_key as key, max(size) as size from objects group by content_key")
      .all() as { key: string; size: number }[];
    return {
      objects: Number(count.n),
      keys: rows.map((r) => r.key),
      bytes: rows.reduce((sum, r) => sum + Number(r.size), 0),
    };
  } finally {
    copy.close();
  }
}

/** The PIDs of the objects whose bytes are `contentKey`, in a database copy. */
export function pidsOfContent(file: string, contentKey: string): string[] {
  const copy = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const rows = copy
      .prepare("select pid from objects where content_key = ? order by pid")
      .all(contentKey) as { pid: string }[];
    return rows.map((r) => r.pid);
  } finally {
    copy.close();
  }
}
