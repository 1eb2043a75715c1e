/**
 * Choosing replication targets: plain functions over the object's system metadata, the approved nodes and the
 * CN's record of each node, so that the rules can be read (and tested) in one place.
 *
 * ReplicationPolicy (types schema): "replicationAllowed ... (true, default)", "numberReplicas ... Defaults to 3",
 * "Preferred Nodes are utilized over other nodes as replication targets, up to the number of replicas
 * requested", "The object MUST never be replicated to nodes listed as blockedMemberNodes ... the
 * blockedMemberNode entry prevails". NodeReplicationPolicy: maxObjectSize, allowedNode (source nodes the target
 * takes replicas from), allowedObjectFormat.
 */

import type { NodeRecord } from "../../db/types.ts";
import type { Node } from "../../types/node.ts";
import type { Replica, ReplicationPolicy, ReplicationStatus, SystemMetadata } from "../../types/sysmeta.ts";

export type ApiVersion = "v1" | "v2";

export const DEFAULT_NUMBER_REPLICAS = 3;

/** Replicas asked for: none without a replication policy or when it says replicationAllowed="false". */
export function wantedReplicas(policy: ReplicationPolicy | undefined): number {
  if (!policy || policy.replicationAllowed === false) return 0;
  return Math.max(0, policy.numberReplicas ?? DEFAULT_NUMBER_REPLICAS);
}

const PENDING: ReadonlySet<ReplicationStatus> = new Set(["queued", "requested"]);
const HOLDING: ReadonlySet<ReplicationStatus> = new Set(["queued", "requested", "completed"]);

export const isPending = (replica: Replica): boolean => PENDING.has(replica.replicationStatus);

/** The replicas numberReplicas counts: completed and pending ones, not the authoritative Member Node's own. */
export function countedReplicas(sysmeta: SystemMetadata): Replica[] {
  return sysmeta.replicas.filter(
    (r) => HOLDING.has(r.replicationStatus) && r.replicaMemberNode !== sysmeta.authoritativeMemberNode,
  );
}

/** Queued or requested replicas not completed within `timeoutMs` of their last status change. */
export function staleRequests(sysmeta: SystemMetadata, now: Date, timeoutMs: number): Replica[] {
  return sysmeta.replicas.filter(
    (r) => isPending(r) && now.getTime() - r.replicaVerified.getTime() >= timeoutMs,
  );
}

/** Whether the planner has something to do for this object. */
export function needsPlanning(sysmeta: SystemMetadata, now: Date, timeoutMs: number): boolean {
  return (
    countedReplicas(sysmeta).length < wantedReplicas(sysmeta.replicationPolicy) ||
    staleRequests(sysmeta, now, timeoutMs).length > 0
  );
}

const serves = (node: Node, service: string, version: ApiVersion) =>
  node.services.some((s) => s.name === service && s.version === version && s.available !== false);

/**
 * The API version of a replication from `source` to `target`: the newest in which the target serves
 * MNReplication (the CN's replicate call) and the source MNRead (the target's getReplica call).
 */
export function replicationVersion(source: Node, target: Node): ApiVersion | undefined {
  return (["v2", "v1"] as const).find(
    (v) => serves(target, "MNReplication", v) && serves(source, "MNRead", v),
  );
}

/** Where replicas are pulled from: the authoritative Member Node, or else a node holding a completed replica. */
export function sourceNode(sysmeta: SystemMetadata, nodes: readonly Node[]): Node | undefined {
  const memberNode = (id: string | undefined) => nodes.find((n) => n.type === "mn" && n.identifier === id);
  const authoritative = memberNode(sysmeta.authoritativeMemberNode);
  if (authoritative && authoritative.state !== "down") return authoritative;
  const holders = sysmeta.replicas
    .filter((r) => r.replicationStatus === "completed")
    .map((r) => memberNode(r.replicaMemberNode))
    .filter((n): n is Node => n !== undefined && n.state !== "down");
  return holders[0] ?? authoritative;
}

/** Why `node` cannot take a replica of the object from `source`; undefined when it can. */
export function unfitness(sysmeta: SystemMetadata, node: Node, source: Node): string | undefined {
  const id = node.identifier;
  if (node.type !== "mn") return `${id} is not a Member Node`;
  if (!node.replicate) return `${id} takes no replicas (replicate="false")`;
  if (node.state === "down") return `${id} is down`;
  if (id === sysmeta.authoritativeMemberNode) return `${id} is the authoritative Member Node`;
  if (id === source.identifier) return `${id} is the source of the replica`;
  if (sysmeta.replicationPolicy?.blockedMemberNodes.includes(id)) return `the object's policy blocks ${id}`;
  if (!replicationVersion(source, node)) {
    return `${id} serves MNReplication in no version ${source.identifier} serves MNRead in`;
  }
  const limits = node.nodeReplicationPolicy;
  if (limits?.maxObjectSize !== undefined && sysmeta.size > limits.maxObjectSize) {
    return `${id} takes objects of at most ${limits.maxObjectSize} bytes`;
  }
  if (
    limits &&
    limits.allowedObjectFormats.length > 0 &&
    !limits.allowedObjectFormats.includes(sysmeta.formatId)
  ) {
    return `${id} does not take the format ${sysmeta.formatId}`;
  }
  if (limits && limits.allowedNodes.length > 0 && !limits.allowedNodes.includes(source.identifier)) {
    return `${id} does not take replicas from ${source.identifier}`;
  }
  return undefined;
}

export interface TargetChoice {
  nodeId: string;
  version: ApiVersion;
}

export interface PlanInput {
  sysmeta: SystemMetadata;
  /** The approved nodes (the CN's listNodes). */
  nodes: readonly Node[];
  records: ReadonlyMap<string, NodeRecord>;
  now: Date;
  /** A node whose replica of this object failed or was invalidated is asked again only after this long. */
  retryFailedAfterMs: number;
}

/**
 * The nodes to queue new replicas on, as many as numberReplicas still lacks: fit nodes without a replica of the
 * object, preferred ones first (in the policy's order), then those with the fewest failures in a row; a node
 * whose replica of this object failed or was invalidated comes after all others, and only after
 * `retryFailedAfterMs`.
 */
export function chooseTargets(input: PlanInput): TargetChoice[] {
  const { sysmeta, now } = input;
  const missing = wantedReplicas(sysmeta.replicationPolicy) - countedReplicas(sysmeta).length;
  if (missing <= 0) return [];
  const source = sourceNode(sysmeta, input.nodes);
  if (!source) return [];
  const entries = new Map(sysmeta.replicas.map((r) => [r.replicaMemberNode, r]));
  const candidates = input.nodes.filter((node) => {
    if (unfitness(sysmeta, node, source) !== undefined) return false;
    const entry = entries.get(node.identifier);
    if (!entry) return true;
    if (HOLDING.has(entry.replicationStatus)) return false;
    return now.getTime() - entry.replicaVerified.getTime() >= input.retryFailedAfterMs;
  });
  const preferred = sysmeta.replicationPolicy?.preferredMemberNodes ?? [];
  const rank = (node: Node): number[] => {
    const position = preferred.indexOf(node.identifier);
    return [
      entries.has(node.identifier) ? 1 : 0,
      position === -1 ? preferred.length : position,
      input.records.get(node.identifier)?.consecutiveFailures ?? 0,
    ];
  };
  const ordered = candidates
    .map((node) => ({ node, rank: rank(node) }))
    .sort((a, b) => compareRanks(a.rank, b.rank) || compareIds(a.node.identifier, b.node.identifier));
  return ordered.slice(0, missing).map(({ node }) => ({
    nodeId: node.identifier,
    version: replicationVersion(source, node) as ApiVersion,
  }));
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

const compareIds = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
