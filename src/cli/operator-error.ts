/**
 * A mistake of the operator's (a bad setting, a file that is not there, a node that refuses): the command prints
 * its message as one line and exits with status 2, without a stack trace (kept for real bugs).
 */
export class OperatorError extends Error {
  override name = "OperatorError";
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
