/**
 * An object as the node holds it, and the digests of its bytes: plain values shared by every layer (the database
 * rows, the object store, the write core, search, views and HTTP), so they live here, below all of them.
 */
import type { SystemMetadata } from "./sysmeta.ts";

/**
 * Digests of an object's bytes. Hex values are lower case. SHA-256 and the system metadata's algorithm are
 * computed in the single pass over an upload; an MD5 or SHA-1 it did not compute is "" until first asked for
 * (then computed from the stored bytes and recorded).
 */
export interface Digests {
  size: number;
  md5: string;
  sha1: string;
  sha256: string;
  /** The algorithm the system metadata names, when it is none of the three above (e.g. SHA-512). */
  extra?: { algorithm: string; value: string };
}

/** An object as the node holds it: its full system metadata (v2 shape) and where its bytes are. */
export interface StoredObject {
  sysmeta: SystemMetadata;
  /** Content key in the object store (SHA-256 hex of the bytes). */
  contentKey: string;
  /** Digests recorded for the bytes; getChecksum answers from these (computing and recording a missing one). */
  digests: Digests;
  /** True when this node holds the object as a replica (not the authoritative copy). */
  isReplica: boolean;
}

/** Which copy of an object's system metadata is current: its serialVersion and dateSysMetadataModified (ms). */
export interface ObjectVersion {
  serialVersion: number;
  dateModified: number;
}
