/**
 * Copying one object the source lists. An object held here as the source lists it (same dateSysMetadataModified
 * and checksum) is skipped without a request; a new one is copied with its bytes. Chains stay consistent: before
 * a version is written, the versions it obsoletes that are not here yet are copied, oldest first, so that every
 * version arrives after the one it obsoletes and a series' head moves along the chain as it did at the source.
 *
 * The source speaks only for what it gave: system metadata must name the PID it was asked for; a held record gets
 * the source's newer system metadata only when an import from this source wrote it and nothing here changed it
 * since (`import_copies`); a new version may not join a chain or series held here that the import did not write.
 * Anything else held here is this node's, and stays as it is (the object is named as a failure).
 */
import { DuplicateKeyError, SeriesConflictError } from "../db/errors.ts";
import type { ImportFailure } from "../db/types.ts";
import {
  D1Error,
  IdentifierNotUnique,
  InvalidRequest,
  InvalidSystemMetadata,
  NotAuthorized,
} from "../errors/exceptions.ts";
import type { ObjectInfo } from "../types/index.ts";
import type { StoredObject } from "../types/stored-object.ts";
import type { SystemMetadata } from "../types/sysmeta.ts";
import { serializeSystemMetadata } from "../types/xml-documents/sysmeta-xml.ts";
import { cappedAt } from "./capped-bytes.ts";
import type { SourceNode } from "./source.ts";
import { type WriteContext, writeImported } from "./write.ts";

export type Outcome = "copied" | "updated" | "unchanged";

/** One run's view of the import: where it copies from, and what it tells about each object. */
export interface ObjectImport {
  ctx: WriteContext;
  source: SourceNode;
  /** Records held as replicas: those whose authoritative node is not the source. */
  sourceNodeId: string;
  /** Bytes received, as they arrive. */
  onBytes(size: number): void;
  /** An object written (copied or updated), for the search index; `ahead` for an older version copied first. */
  onWritten(pid: string, outcome: Exclude<Outcome, "unchanged">, ahead?: boolean): void;
  /** An older version, copied ahead of the listed one that obsoletes it, could not be copied. */
  onFailure(failure: ImportFailure): Promise<void>;
}

/** Longest run of older versions copied ahead of a listed one (guards against a cycle of obsoletes links). */
const MAX_CHAIN = 10_000;

/** Whether the record held is the one the source lists. */
export function isListedAsHeld(held: StoredObject | undefined, info: ObjectInfo): boolean {
  if (!held) return false;
  const { sysmeta } = held;
  return (
    sysmeta.dateSysMetadataModified?.getTime() === info.dateSysMetadataModified.getTime() &&
    sysmeta.checksum.value.toLowerCase() === info.checksum.value.toLowerCase()
  );
}

/** Copies a listed object (fetching its system metadata) unless it is held as listed. */
export async function importListed(
  run: ObjectImport,
  info: ObjectInfo,
  held?: StoredObject,
): Promise<Outcome> {
  if (isListedAsHeld(held, info)) return "unchanged";
  return importRecord(run, await recordOf(run, info.identifier));
}

/** The source's system metadata for `pid`, which must be that object's (not another one's). */
export async function recordOf(run: ObjectImport, pid: string): Promise<SystemMetadata> {
  const sysmeta = await run.source.getSystemMetadata(pid);
  if (sysmeta.identifier !== pid) {
    throw new InvalidSystemMetadata(
      `the source's system metadata for "${pid}" is that of "${sysmeta.identifier}": nothing was written.`,
      { pid },
    );
  }
  return sysmeta;
}

/** Copies or updates the object `sysmeta` describes (the source's record). */
export async function importRecord(run: ObjectImport, sysmeta: SystemMetadata): Promise<Outcome> {
  const held = await run.ctx.db.objects.get(sysmeta.identifier);
  if (held) return updateHeld(run, held, sysmeta);
  await importPredecessors(run, sysmeta);
  return copyObject(run, sysmeta);
}

async function updateHeld(run: ObjectImport, held: StoredObject, sysmeta: SystemMetadata): Promise<Outcome> {
  const pid = sysmeta.identifier;
  if (sameRecord(held.sysmeta, sysmeta)) return "unchanged";
  if (held.sysmeta.size !== sysmeta.size || !sameChecksum(held.sysmeta, sysmeta)) {
    throw new InvalidRequest(
      `"${pid}" is held here with other bytes (${held.sysmeta.checksum.algorithm} ${held.sysmeta.checksum.value}) ` +
        `than the source's (${sysmeta.checksum.algorithm} ${sysmeta.checksum.value}).`,
      { pid },
    );
  }
  const written = (await run.ctx.db.importProgress.copiesOf(run.source.baseUrl, [pid])).get(pid);
  if (!written) throw notGiven(pid, "is held here and was not copied from this source");
  // Changed here since it was copied (a node serving on PostgreSQL meanwhile): this node's record stays; so does
  // a record newer than the source's.
  const heldAt = held.sysmeta.dateSysMetadataModified?.getTime() ?? 0;
  if (heldAt !== written.getTime() || heldAt > (sysmeta.dateSysMetadataModified?.getTime() ?? 0))
    return "unchanged";
  await writeImported(run.ctx, run.source.baseUrl, { kind: "sysmeta", sysmeta }).catch((error: unknown) => {
    throw refusal(error, sysmeta);
  });
  run.onWritten(pid, "updated");
  return "updated";
}

const notGiven = (pid: string, what: string) =>
  new NotAuthorized(`"${pid}" ${what}: this node's record is kept as it is.`, { pid });

/** A new version may join only what this import wrote: the version it obsoletes and its series' head. */
async function checkJoins(run: ObjectImport, sysmeta: SystemMetadata): Promise<void> {
  const { db } = run.ctx;
  const joined = [
    ...(sysmeta.obsoletes && (await db.objects.get(sysmeta.obsoletes)) ? [sysmeta.obsoletes] : []),
    ...(sysmeta.seriesId ? [await db.objects.headOfSeries(sysmeta.seriesId)] : []),
  ].filter((pid): pid is string => pid !== undefined);
  const copies = await db.importProgress.copiesOf(run.source.baseUrl, joined);
  const foreign = joined.find((pid) => !copies.has(pid));
  if (foreign) {
    throw new NotAuthorized(
      `"${sysmeta.identifier}" would follow "${foreign}", which is held here and was not copied from this ` +
        "source: nothing was written.",
      { pid: sysmeta.identifier },
    );
  }
}

/** The versions `sysmeta` obsoletes that are not here, copied oldest first; one the source will not give ends the walk. */
async function importPredecessors(run: ObjectImport, sysmeta: SystemMetadata): Promise<void> {
  const older: SystemMetadata[] = [];
  const seen = new Set([sysmeta.identifier]);
  for (let pid = sysmeta.obsoletes; pid !== undefined && !seen.has(pid) && older.length < MAX_CHAIN; ) {
    seen.add(pid);
    if (await run.ctx.db.objects.get(pid)) break;
    let record: SystemMetadata;
    try {
      record = await recordOf(run, pid);
    } catch (error) {
      if (error instanceof D1Error && error.exception !== "ServiceFailure") break; // gone, or not ours to read
      throw error;
    }
    older.push(record);
    pid = record.obsoletes;
  }
  for (const record of older.reverse()) {
    try {
      await copyObject(run, record, true);
    } catch (error) {
      if (!(error instanceof D1Error) || error.exception === "ServiceFailure") throw error;
      await run.onFailure({ pid: record.identifier, reason: `${error.exception}: ${error.description}` });
    }
  }
}

async function copyObject(run: ObjectImport, sysmeta: SystemMetadata, ahead = false): Promise<Outcome> {
  const pid = sysmeta.identifier;
  await checkJoins(run, sysmeta);
  const bytes = cappedAt(await run.source.get(pid, sysmeta.size), sysmeta.size, pid, run.onBytes);
  const staged = await run.ctx.store.stage(bytes, {
    algorithm: sysmeta.checksum.algorithm,
    expectedSize: sysmeta.size,
  });
  try {
    const isReplica =
      sysmeta.authoritativeMemberNode !== undefined && sysmeta.authoritativeMemberNode !== run.sourceNodeId;
    await writeImported(run.ctx, run.source.baseUrl, { kind: "object", staged, sysmeta, isReplica });
  } catch (error) {
    // Copied meanwhile by another lane (a version copied ahead of the one obsoleting it): nothing to add.
    if (error instanceof DuplicateKeyError && (await run.ctx.db.objects.get(pid))) return "unchanged";
    throw refusal(error, sysmeta);
  } finally {
    await staged.discard();
  }
  run.onWritten(pid, "copied", ahead);
  return "copied";
}

/** The database's refusals as the DataONE exceptions that describe them. */
function refusal(error: unknown, sysmeta: SystemMetadata): unknown {
  const pid = sysmeta.identifier;
  if (error instanceof DuplicateKeyError)
    return new IdentifierNotUnique(`"${pid}" is used here as the seriesId of another object.`, { pid });
  if (error instanceof SeriesConflictError) {
    return new InvalidSystemMetadata(
      `seriesId "${error.sid}" is used here as a PID or by another revision chain, so "${pid}" cannot join it.`,
      { pid },
    );
  }
  return error;
}

const sameChecksum = (a: SystemMetadata, b: SystemMetadata) =>
  a.checksum.value.toLowerCase() === b.checksum.value.toLowerCase() &&
  a.checksum.algorithm.toUpperCase() === b.checksum.algorithm.toUpperCase();

/** Field by field, as the v2 document states them. */
const sameRecord = (a: SystemMetadata, b: SystemMetadata) =>
  serializeSystemMetadata(a, "v2") === serializeSystemMetadata(b, "v2");
