/**
 * What the Coordinating Node accepts from a Member Node's system metadata. A new object passes the CN's create
 * rules, except that it may already be obsoleted (the MN set obsoletedBy when its newer version arrived). For an
 * object the CN holds, the authoritative MN may change what MNStorage.updateSystemMetadata lets it change
 * ("intended for the authoritative MN or rights holder"): access policy, rights holder, replication policy,
 * format, media type and file name; obsoletes, obsoletedBy and seriesId once, when unset; archived only to true.
 * Identifier, size and checksum never change; submitter, dateUploaded and originMemberNode are the CN's as
 * first recorded; the replica list is the CN's own (the CN directs replication): the harvester only starts it, with
 * the node a new object came from.
 */
import { type D1Error, InvalidSystemMetadata } from "../../errors/exceptions.ts";
import { algorithmKey } from "../../store/index.ts";
import type { FormatRegistry } from "../../types/format-registry.ts";
import type { Replica, SystemMetadata } from "../../types/sysmeta.ts";

function fail(pid: string, description: string): D1Error {
  return new InvalidSystemMetadata(description, { pid });
}

/** Checks that need no database: identifier agreement, registered format, supported checksum algorithm. */
export function checkHarvested(formats: FormatRegistry, pid: string, sysmeta: SystemMetadata): void {
  if (sysmeta.identifier !== pid) {
    throw fail(
      pid,
      `The system metadata identifier "${sysmeta.identifier}" differs from the listed "${pid}".`,
    );
  }
  if (!formats.get(sysmeta.formatId)) {
    throw fail(pid, `formatId "${sysmeta.formatId}" is not a registered object format.`);
  }
  if (!algorithmKey(sysmeta.checksum.algorithm)) {
    throw fail(pid, `Checksum algorithm "${sysmeta.checksum.algorithm}" is not supported.`);
  }
  for (const field of ["seriesId", "obsoletes", "obsoletedBy"] as const) {
    if (sysmeta[field] === pid) throw fail(pid, `${field} must differ from the object's own identifier.`);
  }
}

/** The replica list with `nodeId` holding a completed copy (added when the node is not listed at all). */
export function withReplica(replicas: Replica[], nodeId: string, now: Date): Replica[] {
  if (replicas.some((r) => r.replicaMemberNode === nodeId)) return replicas;
  return [...replicas, { replicaMemberNode: nodeId, replicationStatus: "completed", replicaVerified: now }];
}

const sameChecksum = (a: SystemMetadata, b: SystemMetadata) =>
  a.checksum.algorithm.toUpperCase().replace("-", "") ===
    b.checksum.algorithm.toUpperCase().replace("-", "") &&
  a.checksum.value.toLowerCase() === b.checksum.value.toLowerCase();

/** Size and checksum identify the bytes: a Member Node listing other bytes under a known PID is refused. */
export function checkSameBytes(current: SystemMetadata, incoming: SystemMetadata): void {
  const pid = current.identifier;
  if (incoming.size !== current.size) {
    throw fail(
      pid,
      `size cannot change (the CN holds ${current.size}, the Member Node lists ${incoming.size}).`,
    );
  }
  if (
    algorithmKey(incoming.checksum.algorithm) === algorithmKey(current.checksum.algorithm) &&
    !sameChecksum(current, incoming)
  ) {
    throw fail(
      pid,
      `checksum cannot change (the CN holds ${current.checksum.algorithm} ${current.checksum.value}, ` +
        `the Member Node lists ${incoming.checksum.value}).`,
    );
  }
}

/** A field settable once: unset takes the incoming value; a different value afterwards is refused. */
function once(
  pid: string,
  field: "obsoletes" | "obsoletedBy" | "seriesId",
  current?: string,
  incoming?: string,
) {
  if (current === undefined || incoming === undefined || current === incoming) return current ?? incoming;
  throw fail(pid, `${field} cannot change from "${current}" to "${incoming}".`);
}

/**
 * The changes the authoritative Member Node's system metadata makes to the CN's record, or undefined when it
 * changes nothing.
 */
export function authoritativeChanges(
  current: SystemMetadata,
  incoming: SystemMetadata,
): Partial<SystemMetadata> | undefined {
  const pid = current.identifier;
  checkSameBytes(current, incoming);
  const next: Partial<SystemMetadata> = {
    formatId: incoming.formatId,
    rightsHolder: incoming.rightsHolder,
    accessPolicy: incoming.accessPolicy,
    replicationPolicy: incoming.replicationPolicy,
    mediaType: incoming.mediaType,
    fileName: incoming.fileName,
    obsoletes: once(pid, "obsoletes", current.obsoletes, incoming.obsoletes),
    obsoletedBy: once(pid, "obsoletedBy", current.obsoletedBy, incoming.obsoletedBy),
    seriesId: once(pid, "seriesId", current.seriesId, incoming.seriesId),
    // "An archived object cannot be unarchived": archiving on the CN stands.
    archived: current.archived === true || incoming.archived === true,
  };
  const changed = (Object.keys(next) as (keyof SystemMetadata)[]).some(
    (key) => JSON.stringify(next[key]) !== JSON.stringify(current[key]),
  );
  return changed ? next : undefined;
}
