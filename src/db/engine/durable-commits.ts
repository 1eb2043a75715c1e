/**
 * SQLite commits made durable before anyone hears of them: after a use of the connection that changed rows, the
 * caller waits for an fsync of the write-ahead log begun after its commit. One fsync is shared by every commit
 * made while the one before it ran (group commit), so concurrent creates pay for one flush, not one each.
 * The connection itself runs synchronous=NORMAL (sqlite-handle.ts): with it SQLite never syncs at a commit, and
 * the WAL file is ordered, so a flush that covers a commit covers every earlier one. Why not synchronous=FULL:
 * its fsync runs inside the commit on the event loop's thread, one per commit (docs/decisions.md, "Durable
 * commits on SQLite").
 */
import { type FileHandle, open } from "node:fs/promises";
import path from "node:path";
import type SQLite from "better-sqlite3";
import {
  type DatabaseConnection,
  type Driver,
  SqliteDialect,
  type SqliteDialectConfig,
  type TransactionSettings,
} from "kysely";

/** Resolves once every commit made before the call is on disk; rejects when that cannot be promised. */
export type WalFlush = () => Promise<void>;

/**
 * Group commit on `databaseFile`'s WAL. The folder is fsynced too whenever the WAL is a new file (its first
 * flush, or after SQLite made it anew), so that its name survives with its content. A failed fsync is final:
 * the kernel may have dropped the pages it could not write and report success next time, so every later flush
 * fails too, until the process restarts (what PostgreSQL does, by stopping).
 */
export function walFlush(databaseFile: string): WalFlush {
  const wal = `${databaseFile}-wal`;
  let flushedInode: number | undefined;
  let failure: Error | undefined;
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;

  const flushOnce = async () => {
    const file = await open(wal, "r").catch((error: NodeJS.ErrnoException) => {
      // No WAL: SQLite checkpointed it into the database file (synced) and removed it.
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    if (!file) return;
    try {
      const { ino } = await file.stat();
      await file.sync();
      if (ino !== flushedInode) {
        await syncFolder(path.dirname(wal));
        flushedInode = ino;
      }
    } finally {
      await file.close();
    }
  };
  const start = () => {
    // After a failure, a later fsync may report success for pages the kernel dropped: never trust one again.
    if (failure) return Promise.reject(failure);
    const run = flushOnce().catch((error: unknown) => {
      failure ??= new Error(
        `the database's write-ahead log could not be flushed to disk (${(error as Error).message}); ` +
          "no write is accepted until the node restarts",
      );
      throw failure;
    });
    running = run;
    const over = () => {
      if (running === run) running = undefined;
    };
    run.then(over, over);
    return run;
  };
  return () => {
    if (!running) return start();
    // The flush under way may have begun before this commit: the next one, shared by all who wait meanwhile.
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return start();
      });
    return next;
  };
}

async function syncFolder(folder: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(folder, "r");
    await handle.sync();
  } finally {
    await handle?.close();
  }
}

/**
 * Kysely's SQLite dialect whose connection, handed back after a use that changed rows (a committed transaction,
 * or a statement outside one), waits for `flush` before the caller goes on. The connection is free again while
 * the caller waits: the next transaction runs during the fsync and shares the next one.
 */
export class DurableSqliteDialect extends SqliteDialect {
  readonly #handle: SQLite.Database;
  readonly #flush: WalFlush;

  constructor(config: SqliteDialectConfig, handle: SQLite.Database, flush: WalFlush) {
    super(config);
    this.#handle = handle;
    this.#flush = flush;
  }

  override createDriver(): Driver {
    const changes = this.#handle.prepare("select total_changes()").pluck();
    return new FlushingDriver(super.createDriver(), () => Number(changes.get()), this.#flush);
  }
}

/** SQLite has one connection, held by one user at a time: the changes counted between acquire and release are its own. */
class FlushingDriver implements Driver {
  #changesAtAcquire = 0;

  constructor(
    private readonly inner: Driver,
    private readonly changes: () => number,
    private readonly flush: WalFlush,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    this.#changesAtAcquire = this.changes();
    return connection;
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const changed = this.changes() !== this.#changesAtAcquire;
    await this.inner.releaseConnection(connection);
    if (changed) await this.flush();
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  savepoint: Driver["savepoint"] = (...args) => this.inner.savepoint?.(...args) ?? Promise.resolve();
  rollbackToSavepoint: Driver["rollbackToSavepoint"] = (...args) =>
    this.inner.rollbackToSavepoint?.(...args) ?? Promise.resolve();
  releaseSavepoint: Driver["releaseSavepoint"] = (...args) =>
    this.inner.releaseSavepoint?.(...args) ?? Promise.resolve();

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
