/** The background task kinds of replication (src/tasks): Member Node side, then Coordinating Node side. */

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
