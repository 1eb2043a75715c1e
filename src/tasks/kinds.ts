/**
 * The kinds of background task that one module enqueues and another runs (src/node/task-handlers.ts lists who
 * runs each), with their keys and payloads: the contract between them, so neither imports the other.
 */
import type { ApiVersion } from "../types/sysmeta.ts";

/** CN: harvest one Member Node's objects (key: the node id). */
export const HARVEST_TASK = "harvest";
/** CN: CNRead.synchronize, fetch one object from its Member Node now (key: the PID). */
export const SYNCHRONIZE_TASK = "synchronize";
/** MN: "after a create or update an MN calls CN.synchronize(pid)" (key: the PID). */
export const NOTIFY_CN_TASK = "notify-cn";

/** Change propagation. */
/** CN: tell one Member Node that an object's system metadata changed. */
export const SYSMETA_CHANGED = "sysmeta-changed";

export interface SysmetaChangedPayload {
  pid: string;
  nodeId: string;
  /** Failed deliveries so far, and when the first of them happened (ms). */
  failures?: number;
  failingSince?: number;
}

/** Keyed by node and PID: a change queued while an earlier one still waits is delivered with it, once. */
export const changeKey = (nodeId: string, pid: string) => `${nodeId} ${pid}`;

/** MN: refresh an object's system metadata from the CN's copy (keyed by PID). */
export const REFRESH_SYSMETA = "refresh-sysmeta";

export interface RefreshPayload {
  pid: string;
}

/** Replication: Member Node side, then Coordinating Node side. */
/** MN: pull the bytes of an accepted MNReplication.replicate request from the source node. Key: the PID. */
export const PULL_REPLICA = "pull-replica";
/** MN: tell the CN how a replication ended (CNReplication.setReplicationStatus). Key: the PID. */
export const REPORT_REPLICA_STATUS = "report-replica-status";
/** CN: decide which Member Nodes should get a replica of one object and queue them. Key: the PID. */
export const REPLICATE_PLAN = "replicate-plan";
/** CN: ask one target Member Node to replicate one object (MNReplication.replicate). Key: PID + node. */
export const REPLICATE_REQUEST = "replicate-request";
/** CN: the periodic scan for objects short of replicas, or with requests gone stale. */
export const REPLICATION_SCAN = "replication-scan";
/** CN: the periodic re-verification of completed replicas on their holders. */
export const REPLICA_AUDIT = "replica-audit";

export interface PullPayload {
  /** The CN's system metadata (v2 XML). */
  sysmeta: string;
  sourceNode: string;
  /** The API version of the replicate call, used for getReplica. */
  version: ApiVersion;
}

/**
 * MN: bring one of the node's DOIs at DataCite up to date with its object: register it, update its metadata and
 * landing page, publish, hide or (a draft whose object is gone) delete it. Key: the PID ("doi:10...").
 */
export const DOI_REGISTRATION = "doi-registration";

/**
 * Tasks of a kind one worker runs at once at most (below its concurrency, 4 by default): harvests of large Member
 * Nodes take minutes, and must leave slots for CNRead.synchronize and the other short tasks.
 */
export const TASK_LIMITS: Readonly<Record<string, number>> = { [HARVEST_TASK]: 2 };
