/** The DataONE Node document (types v1 Node; v2.0 adds `property` elements) as plain values. */

export type NodeType = "mn" | "cn";
export const NODE_TYPES: readonly NodeType[] = ["mn", "cn"];

export type NodeState = "up" | "down" | "unknown";
export const NODE_STATES: readonly NodeState[] = ["up", "down", "unknown"];

export interface ServiceMethodRestriction {
  methodName: string;
  /** The subjects allowed to call the method. */
  subjects: string[];
}

export interface Service {
  /** "MNCore", "MNRead", "CNCore", ... */
  name: string;
  /** "v1", "v2" */
  version: string;
  available?: boolean;
  restrictions: ServiceMethodRestriction[];
}

/** A Quartz cron schedule; every field is a crontab entry ("0/3", "*", "?"). */
export interface Schedule {
  sec: string;
  min: string;
  hour: string;
  mday: string;
  mon: string;
  wday: string;
  year: string;
}

export interface Synchronization {
  schedule: Schedule;
  lastHarvested?: Date;
  lastCompleteHarvest?: Date;
}

export interface NodeReplicationPolicy {
  maxObjectSize?: number;
  spaceAllocated?: number;
  allowedNodes: string[];
  allowedObjectFormats: string[];
}

export interface Ping {
  success?: boolean;
  lastSuccess?: Date;
}

/** v2.0 only: `<property key=".." type="..">value</property>` */
export interface NodeProperty {
  key: string;
  value: string;
  type?: string;
}

export interface Node {
  identifier: string;
  name: string;
  description: string;
  baseURL: string;
  /** Left out of the document when empty ("services" needs at least one "service"). */
  services: Service[];
  synchronization?: Synchronization;
  nodeReplicationPolicy?: NodeReplicationPolicy;
  ping?: Ping;
  subjects: string[];
  /** At least one ("contactSubject minOccurs=1"). */
  contactSubjects: string[];
  replicate: boolean;
  synchronize: boolean;
  type: NodeType;
  state: NodeState;
  /** v2.0 only; left out of v1 documents. */
  properties: NodeProperty[];
}
