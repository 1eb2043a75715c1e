/** Database errors the services act on. */

/** An insert collided with an existing primary key (e.g. a PID already stored). */
export class DuplicateKeyError extends Error {
  constructor(message = "duplicate key") {
    super(message);
    this.name = "DuplicateKeyError";
  }
}

/** SQLite's and PostgreSQL's unique-violation codes. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "23505";
}

/** A conditional system metadata write found another serialVersion (a concurrent change won). */
export class StaleVersionError extends Error {
  constructor(pid: string) {
    super(`object ${pid} no longer has the expected serialVersion`);
    this.name = "StaleVersionError";
  }
}

/** A seriesId that is another object's PID, or names a series this object does not continue. */
export class SeriesConflictError extends Error {
  constructor(
    readonly sid: string,
    readonly pid: string,
  ) {
    super(`seriesId ${sid} of ${pid} is a PID or the SID of another series`);
    this.name = "SeriesConflictError";
  }
}

/** pg's own timeout errors (they carry no code): a statement, a connection, a wait for a pooled connection. */
export function isClientTimeout(error: unknown): boolean {
  const message = error instanceof Error ? error.message : "";
  return (
    message === "Query read timeout" ||
    message === "timeout exceeded when trying to connect" ||
    message.startsWith("Connection terminated due to connection timeout")
  );
}

/** The database did not answer in time: a client-side timeout, or PostgreSQL's statement_timeout (57014). */
export function isDatabaseTimeout(error: unknown): boolean {
  return isClientTimeout(error) || (error as { code?: unknown }).code === "57014";
}
