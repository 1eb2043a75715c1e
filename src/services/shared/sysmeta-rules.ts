/**
 * Rules on incoming system metadata that create and update share, and the fields the node controls.
 * "Client-set fields on create: the fields the schema marks as client responsibility must be set; obsoletes and
 * obsoletedBy must not be set on create." (API text, SystemMetadata)
 */

import type { NodeContext } from "../../context/node-context.ts";
import type { ObjectRepository } from "../../db/types.ts";
import { InvalidSystemMetadata } from "../../errors/exceptions.ts";
import { asSeriesRefusal, seriesIdTaken } from "../../objects/series-refusal.ts";
import { canonicalAlgorithm } from "../../store/index.ts";
import type { SystemMetadata } from "../../types/sysmeta.ts";

export { asSeriesRefusal };

/**
 * Checks that do not need the database: format, checksum algorithm, identifier agreement. The checksum
 * algorithm is rewritten (in `sysmeta`) to its name in DataONE's checksum algorithm list ("sha1" -> "SHA-1"),
 * the name getChecksum and listChecksumAlgorithms give; an unknown one is InvalidSystemMetadata.
 */
export function checkIncoming(ctx: NodeContext, pid: string, sysmeta: SystemMetadata): void {
  const fail = (description: string) => new InvalidSystemMetadata(description, { pid });
  if (sysmeta.identifier !== pid) {
    throw fail(`The system metadata identifier "${sysmeta.identifier}" differs from the pid "${pid}".`);
  }
  if (!ctx.formats.get(sysmeta.formatId)) {
    throw fail(`formatId "${sysmeta.formatId}" is not a registered object format.`);
  }
  const algorithm = canonicalAlgorithm(sysmeta.checksum.algorithm);
  if (!algorithm) {
    throw fail(
      `Checksum algorithm "${sysmeta.checksum.algorithm}" is not supported; use MD5, SHA-1, SHA-256, SHA-384 or SHA-512.`,
    );
  }
  sysmeta.checksum = { ...sysmeta.checksum, algorithm };
  if (sysmeta.obsoletedBy !== undefined) {
    throw fail("obsoletedBy must not be set on a new object; the node sets it when a newer version arrives.");
  }
  if (sysmeta.seriesId !== undefined && sysmeta.seriesId === pid) {
    throw fail("The seriesId must differ from the object's own identifier.");
  }
}

/**
 * A SID may name a new series (unused as PID and SID) or continue the series of the object being obsoleted.
 * "A seriesId can not appear in any other revision chain" (XSD v2.0 seriesId). `objects` is the repository to
 * ask (a transaction's, when called inside one).
 */
export async function checkSeriesId(
  objects: Pick<ObjectRepository, "isIdentifierInUse">,
  sysmeta: SystemMetadata,
  continuing?: SystemMetadata,
): Promise<void> {
  const sid = sysmeta.seriesId;
  if (sid === undefined) return;
  if (continuing?.seriesId === sid) return;
  if (await objects.isIdentifierInUse(sid)) throw seriesIdTaken(sid, sysmeta.identifier);
}

/** The node-controlled fields of a newly stored object. */
export function withNodeFields(
  ctx: NodeContext,
  sysmeta: SystemMetadata,
  submitter: string,
  now: Date,
): SystemMetadata {
  return {
    ...sysmeta,
    serialVersion: 1,
    submitter,
    archived: false,
    dateUploaded: now,
    dateSysMetadataModified: now,
    originMemberNode: ctx.config.nodeId,
    authoritativeMemberNode: ctx.config.nodeId,
    replicas: [],
    obsoletedBy: undefined,
  };
}

/** The next version of an existing record: serialVersion and dateSysMetadataModified move on. */
export function nextRevision(
  sysmeta: SystemMetadata,
  now: Date,
  changes: Partial<SystemMetadata>,
): SystemMetadata {
  return {
    ...sysmeta,
    ...changes,
    serialVersion: (sysmeta.serialVersion ?? 0) + 1,
    dateSysMetadataModified: laterThan(sysmeta.dateSysMetadataModified, now),
  };
}

/** A modification date strictly after the previous one (millisecond precision), so lists see the change. */
export function laterThan(previous: Date | undefined, now: Date): Date {
  if (previous && previous.getTime() >= now.getTime()) return new Date(previous.getTime() + 1);
  return now;
}
