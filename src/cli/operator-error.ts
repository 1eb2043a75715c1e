/**
 * A mistake of the operator's (a bad setting, a file that is not there, a node that refuses): the command prints
 * its message as one line and exits with its status (2 unless said), without a stack trace (kept for real bugs).
 */
export class OperatorError extends Error {
  override name = "OperatorError";
  /** 2: the command could not run (a bad setting, an unreachable node); 1: it ran and the answer was no. */
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 2,
  ) {
    super(message);
  }
}

/** Runs `work`, turning any Error it throws into an OperatorError with the same message. */
export function asOperatorError<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw error instanceof Error && !(error instanceof OperatorError)
      ? new OperatorError(error.message)
      : error;
  }
}
