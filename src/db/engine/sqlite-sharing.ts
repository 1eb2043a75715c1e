/**
 * SQLite: let this process's worker threads open the database file with connections of their own (a rebuild's
 * writers), for a while. The node holds its file with locking_mode=EXCLUSIVE (sqlite-handle.ts), whose WAL index lives in
 * the connection's heap, where no other connection can see it. Sharing leaves WAL (a checkpoint), takes
 * locking_mode=NORMAL and enters WAL again, now with the shared-memory index: other connections then write
 * while this one keeps reading (each reader sees the last commit). Release goes back the same way once the
 * last sharer is done (the threads' connections closed). A switch that cannot be made (a statement or a
 * transaction open on the handle) leaves the mode as it was and shares nothing.
 */
import type SQLite from "better-sqlite3";

/** The file shared until `release()` (call it once every connection the threads opened is closed). */
export interface SharedSqlite {
  readonly file: string;
  /** Non-zero while the node's connection waits for the write lock (`waitForTurn`). */
  readonly nodeWaiting: Int32Array;
  release(): void;
}

export interface SqliteSharing {
  /** Share the file (undefined: it cannot be shared now; write on the node's own connection instead). */
  share(): SharedSqlite | undefined;
  /** Run the node's `begin immediate`, marked as waiting meanwhile so that the threads let it go first. */
  beginning<T>(begin: () => T): T;
}

/**
 * A thread's turn at the write lock: after the node's connection, if it is waiting (SQLite's busy handler
 * polls, so without this a thread taking the lock again right after its commit could keep the node waiting, its
 * event loop stopped, for as long as the threads keep writing).
 */
export function waitForTurn(nodeWaiting: Int32Array): void {
  for (let value = Atomics.load(nodeWaiting, 0); value > 0; value = Atomics.load(nodeWaiting, 0))
    Atomics.wait(nodeWaiting, 0, value, 50);
}

export function sqliteSharing(handle: SQLite.Database, file: string): SqliteSharing {
  let sharers = 0;
  const nodeWaiting = new Int32Array(new SharedArrayBuffer(4));
  const switchTo = (locking: "NORMAL" | "EXCLUSIVE") => {
    handle.pragma("journal_mode = DELETE");
    handle.pragma(`locking_mode = ${locking}`);
    handle.pragma("journal_mode = WAL");
  };
  return {
    share() {
      if (sharers === 0) {
        if (handle.inTransaction) return undefined;
        try {
          switchTo("NORMAL");
        } catch {
          restore(handle);
          return undefined;
        }
      }
      sharers++;
      let released = false;
      return {
        file,
        nodeWaiting,
        release() {
          if (released) return;
          released = true;
          sharers--;
          if (sharers === 0)
            switchBack(
              handle,
              () => switchTo("EXCLUSIVE"),
              () => sharers === 0,
            );
        },
      };
    },
    beginning(begin) {
      if (sharers === 0) return begin();
      Atomics.add(nodeWaiting, 0, 1);
      try {
        return begin();
      } finally {
        Atomics.sub(nodeWaiting, 0, 1);
        Atomics.notify(nodeWaiting, 0);
      }
    },
  };
}

/** Back in WAL with the locking mode in force (a failed switch may have left the file in rollback mode). */
function restore(handle: SQLite.Database): void {
  try {
    handle.pragma("journal_mode = WAL");
  } catch {
    // Still in WAL, or the next switch will try again.
  }
}

/** Exclusive again; should a statement still be open, try once more after it (the file stays shared meanwhile). */
function switchBack(handle: SQLite.Database, exclusive: () => void, unshared: () => boolean): void {
  if (!unshared()) return;
  try {
    exclusive();
  } catch {
    restore(handle);
    setTimeout(() => switchBack(handle, exclusive, unshared), 1000).unref();
  }
}
