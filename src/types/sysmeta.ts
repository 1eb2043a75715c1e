/**
 * DataONE SystemMetadata (types v1 and v2.0) as plain values.
 * The v2.0 document extends v1 with seriesId, mediaType and fileName; the node keeps the v2 shape
 * and down-casts to v1 when a v1 client asks (those three fields are then left out).
 */

export type Permission = "read" | "write" | "changePermission";
export const PERMISSIONS: readonly Permission[] = ["read", "write", "changePermission"];

export type ReplicationStatus = "queued" | "requested" | "completed" | "failed" | "invalidated";
export const REPLICATION_STATUSES: readonly ReplicationStatus[] = [
  "queued",
  "requested",
  "completed",
  "failed",
  "invalidated",
];

export interface Checksum {
  /** Algorithm name as DataONE spells it: "MD5", "SHA-1", "SHA-256", ... */
  algorithm: string;
  /** Lower-case hexadecimal digest. */
  value: string;
}

export interface AccessRule {
  subjects: string[];
  permissions: Permission[];
}

export interface ReplicationPolicy {
  replicationAllowed?: boolean;
  numberReplicas?: number;
  preferredMemberNodes: string[];
  blockedMemberNodes: string[];
}

export interface Replica {
  replicaMemberNode: string;
  replicationStatus: ReplicationStatus;
  replicaVerified: Date;
}

export interface MediaType {
  name: string;
  properties: { name: string; value: string }[];
}

export interface SystemMetadata {
  serialVersion?: number;
  identifier: string;
  formatId: string;
  size: number;
  checksum: Checksum;
  submitter?: string;
  rightsHolder: string;
  accessPolicy: AccessRule[];
  replicationPolicy?: ReplicationPolicy;
  obsoletes?: string;
  obsoletedBy?: string;
  archived?: boolean;
  dateUploaded?: Date;
  dateSysMetadataModified?: Date;
  originMemberNode?: string;
  authoritativeMemberNode?: string;
  replicas: Replica[];
  /** v2.0 only */
  seriesId?: string;
  /** v2.0 only */
  mediaType?: MediaType;
  /** v2.0 only */
  fileName?: string;
}

/** API version of a request or document: the first path segment after the base URL. */
export type ApiVersion = "v1" | "v2";
