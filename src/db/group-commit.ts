/**
 * SQLite group commit. Each Kysely transaction runs as a savepoint inside one open SQLite transaction; its
 * RELEASE lets the next one in, and its promise settles only when that outer transaction commits, which happens
 * once per turn of the event loop for every transaction released meanwhile (one WAL commit, the pages they share
 * written once). Each keeps its own outcome: a failing one is rolled back to its savepoint and fails alone; only
 * a failed COMMIT (or an error that makes SQLite abandon the outer transaction) fails the whole group, and then
 * every member of it. Statements outside a transaction that write run in the open transaction and commit it at
 * once, so they are durable when they return, as with autocommit. See docs/decisions.md, "Group commit".
 */
import type BetterSqlite3 from "better-sqlite3";
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  SelectQueryNode,
  SqliteDialect,
  type SqliteDialectConfig,
} from "kysely";

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

const SAVEPOINT = "d1_grouped";

/** A query that only reads (a write outside a transaction commits the open one; a read need not). */
function reads(query: CompiledQuery): boolean {
  return SelectQueryNode.is(query.query) || /^\s*select\b/i.test(query.sql);
}

/** The SQLite dialect with group commit on `handle` (the handle behind `config.database`). */
export class GroupCommitDialect extends SqliteDialect {
  /** The driver, once Kysely made it: `commitPending` for code that uses the handle directly. */
  driver: GroupCommitDriver | undefined;

  constructor(
    config: SqliteDialectConfig,
    private readonly handle: BetterSqlite3.Database,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    this.driver = new GroupCommitDriver(super.createDriver(), this.handle);
    return this.driver;
  }
}

/** One use of the single connection, from acquire to release (or to the early release of a transaction's commit). */
class Lease implements DatabaseConnection {
  inTransaction = false;
  released = false;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly driver: GroupCommitDriver,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.inTransaction || !this.driver.open || reads(query)) return this.inner.executeQuery<R>(query);
    return this.driver.runAndCommit(() => this.inner.executeQuery<R>(query));
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

export class GroupCommitDriver implements Driver {
  /** Transactions released into the open outer transaction, waiting for its commit. */
  private group: Waiter[] = [];
  private scheduled = false;
  /** An outer transaction begun here is open (not one begun on the handle by other code, e.g. a bulk load). */
  private outer = false;

  constructor(
    private readonly inner: Driver,
    private readonly handle: BetterSqlite3.Database,
  ) {}

  /** Whether the outer transaction is open. */
  get open(): boolean {
    return this.outer;
  }

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new Lease(await this.inner.acquireConnection(), this);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (lease.released) return;
    lease.released = true;
    await this.inner.releaseConnection(lease.inner);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.handle.inTransaction) {
      this.handle.exec("begin");
      this.outer = true;
    }
    this.handle.exec(`savepoint ${SAVEPOINT}`);
    (connection as Lease).inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    this.handle.exec(`release ${SAVEPOINT}`);
    lease.inTransaction = false;
    // Inside a transaction other code began on the handle (a bulk load's): it commits, not the group.
    if (!this.outer) return;
    const committed = new Promise<void>((resolve, reject) => this.group.push({ resolve, reject }));
    // The next transaction may run while this one waits for the group's commit.
    await this.releaseConnection(lease);
    this.schedule();
    return committed;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    // Released: the transaction was over, and its group's commit failed (its members were told).
    if (lease.released) return;
    lease.inTransaction = false;
    if (this.handle.inTransaction) {
      this.handle.exec(`rollback to ${SAVEPOINT}`);
      this.handle.exec(`release ${SAVEPOINT}`);
      this.schedule();
    } else {
      this.lost();
    }
  }

  savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler["compileQuery"]) {
    return this.inner.savepoint?.((connection as Lease).inner, name, compile) ?? Promise.resolve();
  }

  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler["compileQuery"]) {
    return this.inner.rollbackToSavepoint?.((connection as Lease).inner, name, compile) ?? Promise.resolve();
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler["compileQuery"]) {
    return this.inner.releaseSavepoint?.((connection as Lease).inner, name, compile) ?? Promise.resolve();
  }

  /** A statement outside a transaction while one is open: run in it, then commit it with the group. */
  async runAndCommit<R>(run: () => Promise<QueryResult<R>>): Promise<QueryResult<R>> {
    try {
      const result = await run();
      this.commitPending();
      return result;
    } catch (error) {
      if (this.handle.inTransaction) this.schedule();
      else this.lost();
      throw error;
    }
  }

  /**
   * Commit the open transaction now and settle its group. Only by the connection's holder (the scheduled commit,
   * or code that uses the handle directly inside `db.connection()`); throws when the commit fails.
   */
  commitPending(): void {
    if (!this.outer) return;
    if (!this.handle.inTransaction) throw this.lost();
    this.outer = false;
    try {
      this.handle.exec("commit");
    } catch (error) {
      if (this.handle.inTransaction) this.handle.exec("rollback");
      this.settle(error);
      throw error;
    }
    this.settle();
  }

  async destroy(): Promise<void> {
    const connection = await this.inner.acquireConnection();
    try {
      this.commitPending();
    } finally {
      await this.inner.releaseConnection(connection);
    }
    await this.inner.destroy();
  }

  /** SQLite gave up the outer transaction (an I/O error, a full disk): the group's work went with it. */
  private lost(): Error {
    const error = new Error("The database rolled back the transaction this write was to be committed with.");
    this.outer = false;
    this.settle(error);
    return error;
  }

  /** Resolve (or with `error`, reject) every transaction waiting for the outer transaction. */
  private settle(error?: unknown): void {
    const waiting = this.group;
    this.group = [];
    for (const waiter of waiting) {
      if (error === undefined) waiter.resolve();
      else waiter.reject(error);
    }
  }

  /** Commit on the next turn of the event loop, once the transactions ready by then are released into it. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(async () => {
      const connection = await this.inner.acquireConnection();
      this.scheduled = false;
      try {
        this.commitPending();
      } catch {
        // the group's members were told
      } finally {
        await this.inner.releaseConnection(connection);
      }
    });
  }
}
