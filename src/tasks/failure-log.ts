/**
 * How a failed background task is logged. Expected conditions (a peer down or refusing with a DataONE exception,
 * a write that lost a race and is retried) are one line naming the task and why; anything else is a bug and keeps
 * its stack trace.
 */
import { D1Error } from "../errors/exceptions.ts";

/** A condition the task expects and retries (not a bug): logged as one line, without a stack trace. */
export class RetryLater extends Error {
  override name = "RetryLater";
}

export interface TaskFailureLog {
  warn(details: object, message: string): void;
}

export function logTaskFailure(
  log: TaskFailureLog,
  task: { kind: string; key: string },
  error: unknown,
): void {
  const why =
    error instanceof D1Error
      ? `${error.exception}: ${error.description}`
      : error instanceof RetryLater
        ? error.message
        : undefined;
  if (why !== undefined)
    log.warn(
      { task: task.kind, key: task.key },
      `task ${task.kind} ${task.key} failed, retried later: ${why}`,
    );
  else log.warn({ task: task.kind, key: task.key, err: error }, "task failed");
}
