/**
 * The Member Node's side of change propagation: MNRead.systemMetadataChanged "SHOULD schedule a refresh of the
 * object from the authoritative CN copy". The refresh reads the CN's system metadata; the higher serialVersion
 * wins ("incremented on each update of the system metadata; highest is current"), so a copy that is not newer
 * than the local one changes nothing. A newer one replaces every field the node does not hold fixed.
 */

import type { NodeContext } from "../../context/node-context.ts";
import { StaleVersionError } from "../../db/errors.ts";
import { writeObjects } from "../../objects/write.ts";
import { RetryLater } from "../../tasks/failure-log.ts";
import type { SystemMetadata } from "../../types/sysmeta.ts";

/** What the refresh needs of the CN (a D1Client is one). */
export interface SysmetaSource {
  getSystemMetadata(pid: string): Promise<SystemMetadata>;
}

/** The CN's copy describes other bytes than the ones held here: no refresh can reconcile that. */
export class ForeignSysmetaError extends Error {}

export type RefreshOutcome = "updated" | "current" | "absent";

export async function refreshFromCn(
  ctx: NodeContext,
  pid: string,
  cn: SysmetaSource,
): Promise<RefreshOutcome> {
  const local = await ctx.db.objects.get(pid);
  if (!local) return "absent";
  const remote = await cn.getSystemMetadata(pid);
  if ((remote.serialVersion ?? 0) <= (local.sysmeta.serialVersion ?? 0)) return "current";
  const next = refreshed(local.sysmeta, remote);
  try {
    // The write core indexes it; a change the CN sent needs no notice back.
    await writeObjects(ctx, "coordinating-node", (tx) =>
      tx.objects.replaceSysmeta(next, local.sysmeta.serialVersion),
    );
  } catch (error) {
    // Changed here meanwhile: the retry compares again with what is stored then.
    if (error instanceof StaleVersionError)
      throw new RetryLater(`"${pid}" changed during its refresh; retrying`);
    throw error;
  }
  return "updated";
}

/**
 * The local system metadata with the CN's newer copy applied. Fixed for the object's life (and kept from the
 * local copy): identifier, size, checksum, submitter, dateUploaded, originMemberNode; size or checksum differing
 * is ForeignSysmetaError. Everything else comes from the CN: serialVersion and dateSysMetadataModified, rights
 * holder, access and replication policy, the replica list, authoritative node, format, media type, file name,
 * and the version chain. "Archived objects cannot be un-archived", and a series id or chain link set here is
 * never taken away.
 */
export function refreshed(local: SystemMetadata, remote: SystemMetadata): SystemMetadata {
  if (remote.identifier !== local.identifier) {
    throw new ForeignSysmetaError(`The CN answered for "${remote.identifier}", not "${local.identifier}".`);
  }
  const sameChecksum =
    remote.checksum.algorithm !== local.checksum.algorithm ||
    remote.checksum.value.toLowerCase() === local.checksum.value.toLowerCase();
  if (remote.size !== local.size || !sameChecksum) {
    throw new ForeignSysmetaError(
      `The CN's system metadata of "${local.identifier}" gives other bytes (size ${remote.size}, ` +
        `${remote.checksum.algorithm} ${remote.checksum.value}) than this node holds.`,
    );
  }
  return {
    ...remote,
    identifier: local.identifier,
    size: local.size,
    checksum: local.checksum,
    submitter: local.submitter ?? remote.submitter,
    dateUploaded: local.dateUploaded ?? remote.dateUploaded,
    originMemberNode: local.originMemberNode ?? remote.originMemberNode,
    archived: local.archived === true || remote.archived === true,
    seriesId: remote.seriesId ?? local.seriesId,
    obsoletes: remote.obsoletes ?? local.obsoletes,
    obsoletedBy: remote.obsoletedBy ?? local.obsoletedBy,
  };
}
