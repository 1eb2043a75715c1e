/** The API's answer when a seriesId is taken: InvalidSystemMetadata, whether found before the write or by it. */
import { SeriesConflictError } from "../db/errors.ts";
import { type D1Error, InvalidSystemMetadata } from "../errors/exceptions.ts";

export function seriesIdTaken(sid: string, pid: string): D1Error {
  return new InvalidSystemMetadata(
    `seriesId "${sid}" is already in use by another object or series; a SID can only continue the series ` +
      "of the object that the new version obsoletes.",
    { pid },
  );
}

/**
 * The database's verdict on a seriesId, as the API gives it: checkSeriesId runs before the write, but a
 * concurrent writer may take the SID (or the PID) meanwhile; the write's transaction then refuses it.
 */
export function asSeriesRefusal(error: unknown): unknown {
  return error instanceof SeriesConflictError ? seriesIdTaken(error.sid, error.pid) : error;
}
