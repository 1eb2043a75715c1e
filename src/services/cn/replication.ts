/**
 * CNReplication metadata: setReplicationPolicy, setReplicationStatus, updateReplicationMetadata,
 * deleteReplicationMetadata, isNodeAuthorized. The replication engine (scheduling and pulling replicas) is not
 * here; these keep the replica list of the authoritative system metadata.
 */

import { isAllowed, isTrusted } from "../../auth/access.ts";
import { isSymbolicSubject } from "../../auth/subjects.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { StaleVersionError } from "../../db/errors.ts";
import { InvalidRequest, NotAuthorized } from "../../errors/exceptions.ts";
import { type ObjectTransaction, writeObjects } from "../../objects/write.ts";
import type { SystemMetadata } from "../../types/sysmeta.ts";
import {
  REPLICATION_STATUSES,
  type Replica,
  type ReplicationPolicy,
  type ReplicationStatus,
} from "../../types/sysmeta.ts";
import { findByPid, findByPidOrSid } from "../shared/resolve.ts";
import { nextRevision } from "../shared/sysmeta-rules.ts";
import { changeAtVersion, requireTrusted } from "./core.ts";
import { actsAsNode } from "./node-subjects.ts";
import { approvedNodes } from "./nodes.ts";
import { replicationStatusReported } from "./replica-outcomes.ts";

/** setReplicationPolicy: "id: PID or SID (HEAD PID only)"; changePermission on the object is needed. */
export async function setReplicationPolicy(
  ctx: NodeContext,
  call: CallInfo,
  id: string,
  policy: ReplicationPolicy,
  serialVersion: number,
): Promise<boolean> {
  const object = await findByPidOrSid(ctx, id);
  if (!isAllowed(call.session, "changePermission", object.sysmeta)) {
    throw new NotAuthorized(
      `${call.session.subject} may not change the replication policy of "${object.sysmeta.identifier}".`,
      { pid: id },
    );
  }
  await changeAtVersion(
    ctx,
    object.sysmeta.identifier,
    serialVersion,
    () => ({ replicationPolicy: policy }),
    true,
  );
  return true;
}

/** The approved node the caller speaks for, if any. */
async function callerNode(ctx: NodeContext, call: CallInfo): Promise<string | undefined> {
  const nodes = await approvedNodes(ctx);
  return nodes.find((n) => n.type === "mn" && actsAsNode(n, call))?.identifier;
}

/** Moves a Member Node may make on its own replica: "A MN cannot set COMPLETED unless the CN requested it". */
const MN_MOVES: Record<ReplicationStatus, readonly ReplicationStatus[]> = {
  queued: ["requested", "completed", "failed"],
  requested: ["completed", "failed"],
  completed: ["failed"],
  failed: [],
  invalidated: [],
};

/**
 * setReplicationStatus: "Callable by CNs and trusted MNs." `failure` is the description of the optional failure
 * exception document, kept as the node's last failure. A Member Node may report only on its own replica,
 * and only along MN_MOVES; a CN or administrator may set any status (adding the replica entry if missing).
 */
export async function setReplicationStatus(
  ctx: NodeContext,
  call: CallInfo,
  pid: string,
  nodeRef: string | undefined,
  statusText: string | undefined,
  failure?: string,
): Promise<boolean> {
  if (!nodeRef) throw new InvalidRequest("The nodeRef part is required.", { pid });
  const status = statusText?.trim().toLowerCase() as ReplicationStatus | undefined;
  if (!status || !REPLICATION_STATUSES.includes(status)) {
    throw new InvalidRequest(`status must be one of ${REPLICATION_STATUSES.join(", ")}.`, { pid });
  }
  await findByPid(ctx, pid);
  const trusted = isTrusted(call.session);
  if (!trusted && (await callerNode(ctx, call)) !== nodeRef) {
    throw new NotAuthorized(`${call.session.subject} may not report replica status for ${nodeRef}.`, { pid });
  }
  await changeReplicaList(
    ctx,
    pid,
    (current) => {
      const existing = current.replicas.find((r) => r.replicaMemberNode === nodeRef);
      // A node repeating its last report (its first answer was lost) changes nothing.
      if (existing?.replicationStatus === status && !trusted) return undefined;
      if (!existing && !trusted) {
        throw new InvalidRequest(`No replication of "${pid}" to ${nodeRef} was requested.`, { pid });
      }
      if (existing && !trusted && !MN_MOVES[existing.replicationStatus].includes(status)) {
        throw new InvalidRequest(
          `A Member Node cannot move its replica of "${pid}" from ${existing.replicationStatus} to ${status}.`,
          { pid },
        );
      }
      const replica: Replica = {
        replicaMemberNode: nodeRef,
        replicationStatus: status,
        replicaVerified: new Date(),
      };
      return [...current.replicas.filter((r) => r.replicaMemberNode !== nodeRef), replica];
    },
    (tx) => replicationStatusReported(ctx, tx, pid, nodeRef, status, failure),
  );
  return true;
}

/**
 * Rewrites the replica list of `pid` (a new serialVersion and modification date), conditionally on the
 * serialVersion read, and reads again when a concurrent change came first, so that two nodes reporting at once
 * both get their entry. `change` returns the new list, or undefined for no change. Undefined when `pid` is gone.
 * `alongside` runs inside the transaction that writes a new list (not when nothing changes): what must follow
 * the change durably (the node's record, tasks) commits with it or not at all.
 */
export async function changeReplicaList(
  ctx: NodeContext,
  pid: string,
  change: (current: SystemMetadata) => Replica[] | undefined,
  alongside?: (tx: ObjectTransaction) => Promise<void>,
): Promise<SystemMetadata | undefined> {
  for (let attempt = 1; ; attempt++) {
    const current = await ctx.db.objects.get(pid);
    if (!current) return undefined;
    const replicas = change(current.sysmeta);
    if (replicas === undefined) return current.sysmeta;
    const next = nextRevision(current.sysmeta, new Date(), { replicas });
    try {
      await writeObjects(ctx, "replication", async (tx) => {
        await tx.objects.replaceSysmeta(next, current.sysmeta.serialVersion);
        await alongside?.(tx);
      });
      return next;
    } catch (error) {
      if (!(error instanceof StaleVersionError) || attempt >= 50) throw error;
    }
  }
}

/** updateReplicationMetadata: "Replaces the replica with the same nodeRef or adds one ... CNs only." */
export async function updateReplicationMetadata(
  ctx: NodeContext,
  call: CallInfo,
  pid: string,
  replica: Replica,
  serialVersion: number,
): Promise<boolean> {
  requireTrusted(call, "updateReplicationMetadata");
  await findByPid(ctx, pid);
  await changeAtVersion(ctx, pid, serialVersion, (current) => ({
    replicas: [...current.replicas.filter((r) => r.replicaMemberNode !== replica.replicaMemberNode), replica],
  }));
  return true;
}

/** deleteReplicationMetadata: "serialVersion (MUST match the latest). CNs only." */
export async function deleteReplicationMetadata(
  ctx: NodeContext,
  call: CallInfo,
  pid: string,
  nodeId: string | undefined,
  serialVersion: number,
): Promise<boolean> {
  requireTrusted(call, "deleteReplicationMetadata");
  if (!nodeId) throw new InvalidRequest("The nodeId part is required.", { pid });
  await findByPid(ctx, pid);
  await changeAtVersion(
    ctx,
    pid,
    serialVersion,
    (current) => {
      if (!current.replicas.some((r) => r.replicaMemberNode === nodeId)) {
        throw new InvalidRequest(`"${pid}" has no replica on ${nodeId}.`, { pid });
      }
      return { replicas: current.replicas.filter((r) => r.replicaMemberNode !== nodeId) };
    },
    true,
  );
  return true;
}

/**
 * isNodeAuthorized: "Verifies that a replication was scheduled for the target node subject": a queued or
 * requested replica on an approved node whose subjects include targetNodeSubject.
 */
export async function isNodeAuthorized(
  ctx: NodeContext,
  pid: string,
  targetNodeSubject: string | undefined,
): Promise<boolean> {
  if (!targetNodeSubject) throw new InvalidRequest("The targetNodeSubject parameter is required.", { pid });
  const object = await findByPid(ctx, pid);
  const nodes = isSymbolicSubject(targetNodeSubject)
    ? []
    : (await approvedNodes(ctx)).filter((n) => n.subjects.includes(targetNodeSubject));
  const scheduled = object.sysmeta.replicas.some(
    (r) =>
      (r.replicationStatus === "queued" || r.replicationStatus === "requested") &&
      nodes.some((n) => n.identifier === r.replicaMemberNode),
  );
  if (!scheduled) {
    throw new NotAuthorized(`No replication of "${pid}" is scheduled for ${targetNodeSubject}.`, { pid });
  }
  return true;
}
