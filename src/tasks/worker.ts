/**
 * Running queued tasks: a node's worker claims due tasks with a lease, runs each with its kind's handler, and
 * deletes it when done. A failure is retried with exponential backoff (2 s doubling, at most 10 minutes apart)
 * and kept as dead after `maxAttempts` runs or a PermanentTaskError.
 */

import type { ClaimedTask, TaskStore } from "../db/types.ts";
import { type Clock, systemClock } from "../types/clock.ts";

export interface Task {
  id: number;
  kind: string;
  key: string;
  payload: unknown;
  /** Including this run. */
  attempts: number;
  /**
   * Aborted once this run's lease is lost (the worker stalled longer than the lease, or the database was away):
   * another worker may run the task now, so a long handler stops at its next safe point.
   */
  signal?: AbortSignal;
}

/**
 * A task kind's handler, given the context `C` its worker was started with (the node's context for the
 * federation's handlers; the queue knows nothing of it).
 */
export type TaskHandler<C> = (ctx: C, task: Task) => Promise<void>;
export type TaskHandlers<C> = Readonly<Record<string, TaskHandler<C>>>;

/** A context that carries its queue and the handlers of its task kinds (what `runDueTasks` needs). */
export interface WorkerContext<C> {
  tasks: TaskStore;
  taskHandlers: TaskHandlers<C>;
}

/** Thrown by a handler: no retry, the task is kept as dead with the message. Other errors retry with backoff. */
export class PermanentTaskError extends Error {}

/**
 * Thrown by a handler whose peer said when to come back (HTTP 429 or 503 with Retry-After): retried then, or after
 * the usual backoff when that is later.
 */
export class RetryNotBefore extends Error {
  constructor(
    message: string,
    readonly notBefore: Date,
  ) {
    super(message);
  }
}

export interface WorkerOptions {
  /** Tasks run at once by this worker. */
  concurrency?: number;
  /** Tasks of a kind run at once at most, below `concurrency` (long ones must not hold every slot). */
  limits?: Readonly<Record<string, number>>;
  leaseMs?: number;
  pollMs?: number;
  maxAttempts?: number;
  /** Where retry times are read from (the system clock unless a test moves its own). */
  clock?: Clock;
  /** Hears failures (the worker itself never throws). */
  onError?: (task: Task, error: unknown) => void;
  /** Hears each task done (its handler returned and the task was deleted). */
  onDone?: (task: Task, elapsedMs: number) => void;
}

export interface Worker {
  /** Claims no more tasks and waits for those running (their leases lapse if they outlive `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

const DEFAULTS = {
  concurrency: 4,
  limits: {} as Readonly<Record<string, number>>,
  leaseMs: 60_000,
  pollMs: 200,
  maxAttempts: 10,
  clock: systemClock,
};

export function retryDelayMs(attempts: number): number {
  return Math.min(2_000 * 2 ** Math.max(0, attempts - 1), 600_000);
}

/** Runs one claimed task to its outcome; a long task keeps its lease alive meanwhile. */
async function runClaimed<C>(
  ctx: C,
  store: TaskStore,
  handlers: TaskHandlers<C>,
  claimed: ClaimedTask,
  options: Required<Omit<WorkerOptions, "onError" | "onDone">> & Pick<WorkerOptions, "onError" | "onDone">,
): Promise<void> {
  const started = Date.now();
  const leaseLost = new AbortController();
  const task: Task = {
    id: claimed.id,
    kind: claimed.kind,
    key: claimed.key,
    payload: claimed.payload,
    attempts: claimed.attempts,
    signal: leaseLost.signal,
  };
  const keepLease = setInterval(() => {
    store.extendLease(claimed, options.leaseMs).then(
      (kept) => {
        if (!kept) leaseLost.abort(new Error(`the lease of task ${task.kind} ${task.key} was lost`));
      },
      () => undefined, // the database is away: the next extension tells
    );
  }, options.leaseMs / 3);
  try {
    const handler = handlers[task.kind];
    if (!handler) throw new PermanentTaskError(`no handler for tasks of kind "${task.kind}"`);
    await handler(ctx, task);
    await store.complete(claimed);
    options.onDone?.(task, Date.now() - started);
  } catch (error) {
    options.onError?.(task, error);
    const permanent = error instanceof PermanentTaskError || task.attempts >= options.maxAttempts;
    const message = error instanceof Error ? error.message : String(error);
    const backoff = options.clock.now() + retryDelayMs(task.attempts);
    const asked = error instanceof RetryNotBefore ? error.notBefore.getTime() : 0;
    const retryAt = permanent ? undefined : new Date(Math.max(backoff, asked));
    await store.fail(claimed, message, retryAt).catch(() => undefined);
  } finally {
    clearInterval(keepLease);
  }
}

export function startWorker<C>(
  ctx: C,
  store: TaskStore,
  handlers: TaskHandlers<C>,
  options: WorkerOptions = {},
): Worker {
  const settings = { ...DEFAULTS, ...options };
  const kinds = Object.keys(handlers);
  if (kinds.length === 0) return { stop: async () => undefined };
  const running = new Set<Promise<void>>();
  const runningOfKind = new Map<string, number>();
  const limits = settings.limits;
  let stopped = false;
  let wake: (() => void) | undefined;
  const onEnqueued = () => wake?.();
  store.signals.on("enqueued", onEnqueued);

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  const loop = async () => {
    while (!stopped) {
      const room = settings.concurrency - running.size;
      const open = kinds.filter((kind) => (runningOfKind.get(kind) ?? 0) < (limits[kind] ?? Infinity));
      // A kind with a limit is claimed one task at a time, so that one claim cannot take it past its limit.
      const batch = open.some((kind) => limits[kind] !== undefined) ? Math.min(room, 1) : room;
      let claimed: ClaimedTask[] = [];
      if (batch > 0 && open.length > 0) {
        try {
          claimed = await store.claim(open, batch, settings.leaseMs);
        } catch {
          claimed = []; // the database is away; try again after the poll interval
        }
      }
      for (const task of claimed) {
        const kind = task.kind;
        runningOfKind.set(kind, (runningOfKind.get(kind) ?? 0) + 1);
        const run = runClaimed(ctx, store, handlers, task, settings).finally(() => {
          running.delete(run);
          runningOfKind.set(kind, (runningOfKind.get(kind) ?? 1) - 1);
          wake?.();
        });
        running.add(run);
      }
      // Idle or full: an enqueue in this process or a finished task wakes it at once; otherwise it polls (tasks
      // enqueued by other processes, retries and scheduled runs falling due, leases lapsing).
      if (claimed.length === 0 || running.size >= settings.concurrency) await sleep(settings.pollMs);
    }
  };
  const looping = loop();

  return {
    async stop(graceMs = 10_000) {
      stopped = true;
      store.signals.off("enqueued", onEnqueued);
      wake?.();
      await looping;
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([Promise.allSettled([...running]), grace]);
      clearTimeout(timer);
    },
  };
}

/**
 * For tests and one-shot commands: run every due task (and those they enqueue, when due) one at a time until
 * none is left; returns how many ran.
 */
export async function runDueTasks<C extends WorkerContext<C>>(
  ctx: C,
  options: Pick<WorkerOptions, "maxAttempts" | "onError"> = {},
): Promise<number> {
  const settings = { ...DEFAULTS, ...options };
  const { tasks: store, taskHandlers: handlers } = ctx;
  let ran = 0;
  for (;;) {
    const [task] = await store.claim(Object.keys(handlers), 1, settings.leaseMs);
    if (!task) return ran;
    await runClaimed(ctx, store, handlers, task, settings);
    ran += 1;
  }
}
