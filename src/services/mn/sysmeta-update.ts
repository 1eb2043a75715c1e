/**
 * MNStorage.updateSystemMetadata (v2): "Intended for the authoritative MN or rights holder. A CN may call it on a
 * non-authoritative MN only when the authoritative MN no longer exists."
 * Immutable: identifier, size, checksum, submitter, dateUploaded, originMemberNode (changes are InvalidRequest).
 * serialVersion must be the current one (optimistic concurrency). seriesId, obsoletes and obsoletedBy may be set
 * where unset, never changed (no inconsistent chains). archived cannot go back to false.
 */
import { isAllowed } from "../../auth/access.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { StaleVersionError } from "../../db/errors.ts";
import type { ObjectRepository } from "../../db/types.ts";
import {
  type D1Error,
  InvalidRequest,
  InvalidSystemMetadata,
  NotAuthorized,
} from "../../errors/exceptions.ts";
import { writeObjects } from "../../objects/write.ts";
import { algorithmKey } from "../../store/index.ts";
import type { SystemMetadata } from "../../types/sysmeta.ts";
import { notHeld } from "../shared/resolve.ts";
import { asSeriesRefusal, checkIncoming, checkSeriesId, nextRevision } from "../shared/sysmeta-rules.ts";

export async function updateSystemMetadata(
  ctx: NodeContext,
  call: CallInfo,
  pid: string,
  incoming: SystemMetadata,
): Promise<boolean> {
  if (incoming.identifier !== pid) {
    throw new InvalidRequest(
      `The system metadata identifier "${incoming.identifier}" differs from pid "${pid}".`,
      {
        pid,
      },
    );
  }
  const { session } = call;
  // A change the CN made needs no notice back; others are synchronized to the CN (the write core queues it).
  const updated = await writeObjects(ctx, session.isCn ? "coordinating-node" : "client", async (tx) => {
    const current = await tx.objects.get(pid);
    if (!current) throw notHeld(pid);
    const old = current.sysmeta;
    if (!isAllowed(session, "changePermission", old)) {
      throw new NotAuthorized(`${session.subject} may not change the system metadata of "${pid}".`, { pid });
    }
    if (!session.isCn && !session.isAdmin && old.authoritativeMemberNode !== ctx.config.nodeId) {
      throw new InvalidRequest(
        `This node is not the authoritative Member Node of "${pid}" (${old.authoritativeMemberNode}); update it there.`,
        { pid },
      );
    }
    if (incoming.serialVersion === undefined) {
      throw new InvalidRequest(
        "serialVersion is missing; send the system metadata as last read from this node.",
        {
          pid,
        },
      );
    }
    if (incoming.serialVersion !== old.serialVersion) {
      throw new InvalidRequest(
        `serialVersion ${incoming.serialVersion} is not the current one (${old.serialVersion}); ` +
          "read the system metadata again and reapply the change.",
        { pid },
      );
    }
    checkImmutable(old, incoming);
    checkIncoming(ctx, pid, { ...incoming, obsoletedBy: undefined });
    await checkChain(tx.objects, old, incoming);
    await checkAddedSeriesId(tx.objects, old, incoming).catch(async (error: unknown) => {
      throw await staleBeforeSeries(tx.objects, old, error);
    });
    if (old.archived && incoming.archived === false) {
      throw new InvalidRequest("An archived object cannot be un-archived.", { pid });
    }
    const next = nextRevision(old, new Date(), {
      rightsHolder: incoming.rightsHolder,
      formatId: incoming.formatId,
      accessPolicy: incoming.accessPolicy,
      replicationPolicy: incoming.replicationPolicy,
      authoritativeMemberNode: incoming.authoritativeMemberNode ?? old.authoritativeMemberNode,
      archived: old.archived || incoming.archived === true,
      obsoletes: incoming.obsoletes,
      obsoletedBy: incoming.obsoletedBy,
      seriesId: old.seriesId ?? incoming.seriesId,
      mediaType: incoming.mediaType,
      fileName: incoming.fileName,
      replicas: session.isCn ? incoming.replicas : old.replicas,
    });
    // Conditional on the serialVersion checked above: of two racing updates, one commits, the other is refused.
    // A seriesId refused once the row is ours is taken indeed (the object did not change under this call).
    await tx.objects.replaceSysmeta(next, old.serialVersion).catch((error: unknown) => {
      throw error instanceof StaleVersionError ? changedMeanwhile(old) : asSeriesRefusal(error);
    });
    return true;
  });
  return updated;
}

function changedMeanwhile(old: SystemMetadata): D1Error {
  return new InvalidRequest(
    `"${old.identifier}" was changed by a concurrent request (serialVersion ${old.serialVersion} is no longer the ` +
      "current one); read the system metadata again and reapply the change.",
    { pid: old.identifier },
  );
}

/**
 * A seriesId refusal found after a concurrent writer changed the object (PostgreSQL reads each statement's own
 * snapshot): the caller's copy is stale, and "read it again" is the answer that lets it succeed.
 */
async function staleBeforeSeries(
  objects: ObjectRepository,
  old: SystemMetadata,
  error: unknown,
): Promise<unknown> {
  if (!(error instanceof InvalidSystemMetadata)) return error;
  const now = await objects.get(old.identifier);
  return now && now.sysmeta.serialVersion !== old.serialVersion ? changedMeanwhile(old) : error;
}

function checkImmutable(old: SystemMetadata, incoming: SystemMetadata): void {
  const same = (a: unknown, b: unknown) => a === b;
  const checks: [string, boolean][] = [
    ["size", same(old.size, incoming.size)],
    [
      "checksum",
      same(algorithmKey(old.checksum.algorithm), algorithmKey(incoming.checksum.algorithm)) &&
        same(old.checksum.value.toLowerCase(), incoming.checksum.value.toLowerCase()),
    ],
    ["submitter", incoming.submitter === undefined || same(old.submitter, incoming.submitter)],
    [
      "dateUploaded",
      incoming.dateUploaded === undefined ||
        same(old.dateUploaded?.getTime(), incoming.dateUploaded.getTime()),
    ],
    ["originMemberNode", same(old.originMemberNode, incoming.originMemberNode)],
    ["seriesId", old.seriesId === undefined || same(old.seriesId, incoming.seriesId)],
  ];
  const changed = checks.filter(([, ok]) => !ok).map(([name]) => name);
  if (changed.length > 0) {
    throw new InvalidRequest(`These system metadata fields cannot be changed: ${changed.join(", ")}.`, {
      pid: old.identifier,
    });
  }
}

/**
 * obsoletes/obsoletedBy: set once, to another object held here whose link back is unset or names this object
 * (no branches, no two-object loops); never changed or removed.
 */
async function checkChain(
  objects: ObjectRepository,
  old: SystemMetadata,
  incoming: SystemMetadata,
): Promise<void> {
  const pid = old.identifier;
  for (const field of ["obsoletes", "obsoletedBy"] as const) {
    const before = old[field];
    const after = incoming[field];
    if (before === after || after === undefined) {
      if (before !== after)
        throw new InvalidRequest(`${field} is "${before}" and cannot be removed.`, { pid });
      continue;
    }
    if (before !== undefined) {
      throw new InvalidRequest(`${field} is "${before}" and cannot be changed.`, { pid });
    }
    const target = after === pid ? undefined : await objects.get(after);
    if (!target) {
      throw new InvalidRequest(`${field} must name another object held by this node ("${after}" is not).`, {
        pid,
      });
    }
    const other = field === "obsoletes" ? "obsoletedBy" : "obsoletes";
    const back = target.sysmeta[other];
    if ((back !== undefined && back !== pid) || after === incoming[other]) {
      throw new InvalidRequest(
        `${field} "${after}" would make the version chain inconsistent ("${after}" has ${other} ` +
          `${back === undefined ? "unset" : `"${back}"`}; this object has ${other} "${incoming[other] ?? ""}").`,
        { pid },
      );
    }
  }
}

/**
 * A seriesId added to an object without one follows the rule of create and update: a new SID, or the series of
 * the object this one obsoletes (when that object is obsoleted by this one). Otherwise InvalidSystemMetadata.
 */
async function checkAddedSeriesId(
  objects: ObjectRepository,
  old: SystemMetadata,
  incoming: SystemMetadata,
): Promise<void> {
  if (old.seriesId !== undefined || incoming.seriesId === undefined) return;
  const previous = incoming.obsoletes === undefined ? undefined : await objects.get(incoming.obsoletes);
  const continuing = previous?.sysmeta.obsoletedBy === old.identifier ? previous.sysmeta : undefined;
  await checkSeriesId(objects, incoming, continuing);
}
