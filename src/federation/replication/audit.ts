/**
 * Replica audit (ReplicationStatus, types schema): "Periodically a CN checks each replica to be sure it is both
 * available and valid (matching checksum with original), and if it is either inaccessible or invalid then it
 * marks it as invalidated, which indicates that the object replication needs to be invoked again."
 * Each completed replica not verified within replicaAuditAge is checked with MNRead.getChecksum on its holder
 * (a Member Node recomputes the digest from its stored bytes when a CN asks) against the checksum of the
 * authoritative system metadata. A wrong checksum, or NotFound, invalidates the replica; a holder that cannot be
 * reached is left for the next audit, so that a node down for maintenance does not lose its replicas at once.
 */

import type { NodeContext } from "../../context/node-context.ts";
import { recordAuditResult } from "../../context/outcomes.ts";
import { D1Error } from "../../errors/exceptions.ts";
import { approvedNode } from "../../services/cn/nodes.ts";
import { replicationStatusReported } from "../../services/cn/replica-outcomes.ts";
import { changeReplicaList } from "../../services/cn/replication.ts";
import { algorithmKey } from "../../store/index.ts";
import type { Node } from "../../types/node.ts";
import type { Checksum, Replica, SystemMetadata } from "../../types/sysmeta.ts";
import { clientFor } from "../client.ts";
import { forEachObject } from "./scan.ts";

export type Verdict = { valid: true } | { valid: false; why: string } | { valid: undefined; why: string };

export interface AuditReport {
  checked: number;
  invalidated: number;
  unreachable: number;
}

/** One pass over every completed replica due for an audit. */
export async function auditReplicas(ctx: NodeContext): Promise<AuditReport> {
  const report: AuditReport = { checked: 0, invalidated: 0, unreachable: 0 };
  const dueBefore = Date.now() - ctx.config.replicaAuditAge * 1000;
  await forEachObject(ctx, "withReplicas", async (object) => {
    const { sysmeta } = object;
    const due = sysmeta.replicas.filter(
      (r) =>
        r.replicationStatus === "completed" &&
        r.replicaMemberNode !== sysmeta.authoritativeMemberNode &&
        r.replicaVerified.getTime() <= dueBefore,
    );
    for (const replica of due) {
      const node = await approvedNode(ctx, replica.replicaMemberNode);
      if (node?.type !== "mn") continue;
      const verdict = await verifyReplica(ctx, node, sysmeta);
      report.checked++;
      const outcome = verdict.valid === undefined ? "unreachable" : verdict.valid ? "valid" : "invalid";
      recordAuditResult(ctx, { kind: "replica", outcome });
      if (verdict.valid === undefined) report.unreachable++;
      else await recordVerdict(ctx, sysmeta.identifier, replica, verdict);
      if (verdict.valid === false) report.invalidated++;
    }
  });
  return report;
}

/** getChecksum on the holder, in the algorithm of the authoritative checksum, compared with it. */
export async function verifyReplica(ctx: NodeContext, node: Node, sysmeta: SystemMetadata): Promise<Verdict> {
  const pid = sysmeta.identifier;
  const version = node.services.some((s) => s.name === "MNRead" && s.version === "v2") ? "v2" : "v1";
  const expected = sysmeta.checksum;
  try {
    const actual = await clientFor(ctx, node.baseURL, { version }).getChecksum(pid, expected.algorithm);
    return checksumVerdict(node.identifier, expected, actual);
  } catch (error) {
    if (error instanceof D1Error && error.exception === "NotFound") {
      return { valid: false, why: `${node.identifier} no longer holds "${pid}": ${error.description}` };
    }
    const why = error instanceof Error ? error.message : String(error);
    return { valid: undefined, why: `${node.identifier} could not be audited: ${why}` };
  }
}

/** Whether the checksum a holder answered (asked in `expected`'s algorithm) is `expected`. */
export function checksumVerdict(
  nodeId: string,
  expected: Checksum,
  actual: Checksum,
): { valid: true } | { valid: false; why: string } {
  if (algorithmKey(actual.algorithm) !== algorithmKey(expected.algorithm)) {
    return {
      valid: false,
      why: `${nodeId} answered a ${actual.algorithm} checksum, not ${expected.algorithm}`,
    };
  }
  if (actual.value.toLowerCase() !== expected.value.toLowerCase()) {
    return {
      valid: false,
      why: `${nodeId} holds bytes with ${expected.algorithm} ${actual.value}, not ${expected.value}`,
    };
  }
  return { valid: true };
}

/** A valid replica gets a new replicaVerified date; an invalid one is invalidated and planned anew. */
async function recordVerdict(
  ctx: NodeContext,
  pid: string,
  replica: Replica,
  verdict: { valid: true } | { valid: false; why: string },
): Promise<void> {
  const nodeId = replica.replicaMemberNode;
  await changeReplicaList(
    ctx,
    pid,
    (current) => {
      const entry = current.replicas.find((r) => r.replicaMemberNode === nodeId);
      if (entry?.replicationStatus !== "completed") return undefined;
      const audited: Replica = {
        replicaMemberNode: nodeId,
        replicationStatus: verdict.valid ? "completed" : "invalidated",
        replicaVerified: new Date(),
      };
      return current.replicas.map((r) => (r.replicaMemberNode === nodeId ? audited : r));
    },
    verdict.valid
      ? undefined
      : (tx) => replicationStatusReported(ctx, tx, pid, nodeId, "invalidated", verdict.why),
  );
}
