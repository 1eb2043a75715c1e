/**
 * MNStorage.updateSystemMetadata (v2): "Intended for the authoritative MN or rights holder. A CN may call it on a
 * non-authoritative MN only when the authoritative MN no longer exists."
 * Immutable: identifier, size, checksum, submitter, dateUploaded, originMemberNode, seriesId (changes are
 * InvalidRequest). serialVersion must be the current one (optimistic concurrency). obsoletes/obsoletedBy may be
 * set where unset, never changed (no inconsistent chains). archived cannot go back to false.
 */
import { isAllowed } from "../../auth/access.ts";
import type { ObjectRepository } from "../../db/types.ts";
import { InvalidRequest, NotAuthorized } from "../../errors/exceptions.ts";
import type { SystemMetadata } from "../../types/sysmeta.ts";
import type { CallInfo, NodeContext } from "../context.ts";
import { notHeld } from "./resolve.ts";
import { checkIncoming, nextRevision } from "./sysmeta-rules.ts";

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
  return ctx.db.transaction(async (tx) => {
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
      mediaType: incoming.mediaType,
      fileName: incoming.fileName,
      replicas: session.isCn ? incoming.replicas : old.replicas,
    });
    await tx.objects.replaceSysmeta(next);
    return true;
  });
}

function checkImmutable(old: SystemMetadata, incoming: SystemMetadata): void {
  const same = (a: unknown, b: unknown) => a === b;
  const checks: [string, boolean][] = [
    ["size", same(old.size, incoming.size)],
    [
      "checksum",
      same(old.checksum.algorithm.toUpperCase(), incoming.checksum.algorithm.toUpperCase()) &&
        same(old.checksum.value.toLowerCase(), incoming.checksum.value.toLowerCase()),
    ],
    ["submitter", incoming.submitter === undefined || same(old.submitter, incoming.submitter)],
    [
      "dateUploaded",
      incoming.dateUploaded === undefined ||
        same(old.dateUploaded?.getTime(), incoming.dateUploaded.getTime()),
    ],
    ["originMemberNode", same(old.originMemberNode, incoming.originMemberNode)],
    ["seriesId", same(old.seriesId, incoming.seriesId)],
  ];
  const changed = checks.filter(([, ok]) => !ok).map(([name]) => name);
  if (changed.length > 0) {
    throw new InvalidRequest(`These system metadata fields cannot be changed: ${changed.join(", ")}.`, {
      pid: old.identifier,
    });
  }
}

/** obsoletes/obsoletedBy: set once, to another object held here; never changed or removed. */
async function checkChain(
  objects: ObjectRepository,
  old: SystemMetadata,
  incoming: SystemMetadata,
): Promise<void> {
  for (const field of ["obsoletes", "obsoletedBy"] as const) {
    const before = old[field];
    const after = incoming[field];
    if (before === after) continue;
    if (before !== undefined) {
      throw new InvalidRequest(`${field} is "${before}" and cannot be changed or removed.`, {
        pid: old.identifier,
      });
    }
    if (after === old.identifier || !(await objects.get(after as string))) {
      throw new InvalidRequest(`${field} must name another object held by this node ("${after}" is not).`, {
        pid: old.identifier,
      });
    }
  }
}
