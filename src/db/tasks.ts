/**
 * The durable task queue, kept in the node's database (table `tasks`): background work survives restarts,
 * retries with backoff, and several worker processes on one PostgreSQL database never run a task twice at once
 * (claims take a lease with FOR UPDATE SKIP LOCKED; an expired lease makes the task claimable again).
 */
import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { type Kysely, sql } from "kysely";
import { type Clock, systemClock } from "../types/clock.ts";
import type { Tables } from "./schema.ts";

export interface EnqueueOptions {
  /** Not before this time (default: now). */
  runAt?: Date;
}

export interface TaskQueue {
  /** Adds a task. A waiting task of the same kind and key is not duplicated; it keeps the earlier runAt. */
  enqueue(kind: string, key: string, payload: unknown, options?: EnqueueOptions): Promise<void>;
}

export interface ClaimedTask {
  id: number;
  kind: string;
  key: string;
  payload: unknown;
  /** Including this run. */
  attempts: number;
  leaseOwner: string;
}

export interface DeadTask {
  id: number;
  kind: string;
  key: string;
  attempts: number;
  lastError: string;
}

/** What workers use besides enqueue. */
export interface TaskStore extends TaskQueue {
  /** Leases up to `limit` due tasks of the given kinds to a new owner token for `leaseMs`. */
  claim(kinds: readonly string[], limit: number, leaseMs: number): Promise<ClaimedTask[]>;
  /** Keeps a long task's lease; false once the lease was lost (another worker may run it). */
  extendLease(task: ClaimedTask, leaseMs: number): Promise<boolean>;
  /** Done: the task is deleted. */
  complete(task: ClaimedTask): Promise<void>;
  /** Run again at `retryAt`, or keep as dead when `retryAt` is undefined. */
  fail(task: ClaimedTask, error: string, retryAt: Date | undefined): Promise<void>;
  dead(): Promise<DeadTask[]>;
  /** Tasks not yet finished (waiting or running), per kind. */
  pending(): Promise<Record<string, number>>;
  /** Emits "enqueued" in this process after each enqueue. */
  readonly signals: EventEmitter;
}

/** Insert (or merge into the waiting task of the same kind and key) one task row, on `db` (a transaction's or not). */
async function insertTask(
  db: Kysely<Tables>,
  dialect: "sqlite" | "postgres",
  kind: string,
  key: string,
  payload: unknown,
  options: EnqueueOptions,
  now: number,
): Promise<void> {
  const runAt = options.runAt?.getTime() ?? now;
  const earlier = dialect === "postgres" ? sql`least` : sql`min`;
  await sql`
    insert into tasks (kind, key, payload, state, attempts, run_at, created_at)
    values (${kind}, ${key}, ${JSON.stringify(payload ?? null)}, 'ready', 0, ${runAt}, ${now})
    on conflict (kind, key) where state = 'ready'
    do update set run_at = ${earlier}(tasks.run_at, excluded.run_at), payload = excluded.payload
  `.execute(db);
}

/**
 * The queue as seen inside a write's transaction (`tx.tasks`): the task commits with the write or not at all.
 * The kinds enqueued are announced (`committed`) only after the commit, so that no worker looks for a row it
 * cannot see yet.
 */
export function transactionTasks(
  tx: Kysely<Tables>,
  dialect: "sqlite" | "postgres",
  clock: Clock = systemClock,
): TaskQueue & { committed(signals: EventEmitter): void } {
  const kinds = new Set<string>();
  return {
    async enqueue(kind, key, payload, options = {}) {
      await insertTask(tx, dialect, kind, key, payload, options, clock.now());
      kinds.add(kind);
    },
    committed(signals) {
      for (const kind of kinds) signals.emit("enqueued", kind);
    },
  };
}

/** The queue over `db`; due times and leases are read from `clock`. */
export function taskRepository(
  db: Kysely<Tables>,
  dialect: "sqlite" | "postgres",
  clock: Clock = systemClock,
): TaskStore {
  const signals = new EventEmitter();
  signals.setMaxListeners(0);
  const skipLocked = dialect === "postgres" ? sql`for update skip locked` : sql``;

  return {
    signals,

    async enqueue(kind, key, payload, options = {}) {
      await insertTask(db, dialect, kind, key, payload, options, clock.now());
      signals.emit("enqueued", kind);
    },

    async claim(kinds, limit, leaseMs) {
      if (kinds.length === 0 || limit <= 0) return [];
      const now = clock.now();
      const owner = randomUUID();
      const { rows } = await sql<{
        id: number;
        kind: string;
        key: string;
        payload: string;
        attempts: number;
      }>`
        update tasks set state = 'running', lease_owner = ${owner}, lease_until = ${now + leaseMs},
          attempts = attempts + 1
        where id in (
          select id from tasks
          where kind in (${sql.join(kinds)})
            and ((state = 'ready' and run_at <= ${now}) or (state = 'running' and lease_until < ${now}))
          order by run_at, id
          limit ${limit}
          ${skipLocked}
        )
        returning id, kind, key, payload, attempts
      `.execute(db);
      return rows.map((row) => ({
        id: Number(row.id),
        kind: row.kind,
        key: row.key,
        payload: JSON.parse(row.payload) as unknown,
        attempts: Number(row.attempts),
        leaseOwner: owner,
      }));
    },

    async extendLease(task, leaseMs) {
      const result = await db
        .updateTable("tasks")
        .set({ lease_until: clock.now() + leaseMs })
        .where("id", "=", task.id)
        .where("lease_owner", "=", task.leaseOwner)
        .where("state", "=", "running")
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async complete(task) {
      await db
        .deleteFrom("tasks")
        .where("id", "=", task.id)
        .where("lease_owner", "=", task.leaseOwner)
        .execute();
    },

    async fail(task, error, retryAt) {
      await db.transaction().execute(async (tx) => {
        const owned = tx
          .updateTable("tasks")
          .where("id", "=", task.id)
          .where("lease_owner", "=", task.leaseOwner)
          .where("state", "=", "running");
        if (retryAt === undefined) {
          await owned
            .set({ state: "dead", lease_owner: null, lease_until: null, last_error: error })
            .execute();
          return;
        }
        // A newer task with the same kind and key may be waiting already; it supersedes this retry.
        const waiting = await tx
          .selectFrom("tasks")
          .select("id")
          .where("kind", "=", task.kind)
          .where("key", "=", task.key)
          .where("state", "=", "ready")
          .executeTakeFirst();
        if (waiting) {
          await tx
            .deleteFrom("tasks")
            .where("id", "=", task.id)
            .where("lease_owner", "=", task.leaseOwner)
            .execute();
          return;
        }
        await owned
          .set({
            state: "ready",
            run_at: retryAt.getTime(),
            lease_owner: null,
            lease_until: null,
            last_error: error,
          })
          .execute();
      });
    },

    async dead() {
      const rows = await db
        .selectFrom("tasks")
        .selectAll()
        .where("state", "=", "dead")
        .orderBy("id")
        .execute();
      return rows.map((row) => ({
        id: Number(row.id),
        kind: row.kind,
        key: row.key,
        attempts: row.attempts,
        lastError: row.last_error ?? "",
      }));
    },

    async pending() {
      const rows = await db
        .selectFrom("tasks")
        .select(["kind", (eb) => eb.fn.countAll<number>().as("count")])
        .where("state", "in", ["ready", "running"])
        .groupBy("kind")
        .execute();
      return Object.fromEntries(rows.map((row) => [row.kind, Number(row.count)]));
    },
  };
}
