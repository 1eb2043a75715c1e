/**
 * An object as the node holds it, and the digests of its bytes: plain values shared by every layer (the database
 * rows, the object store, the write core, search, views and HTTP), so they live here, below all of them.
 */
import type { SystemMetadata } from "./sysmeta.ts";

/** Digests computed in the single pass over an upload. Hex values are lower case. */
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
  /** Digests computed when the bytes arrived; getChecksum answers from these. */
  digests: Digests;
  /** True when this node holds the object as a replica (not the authoritative copy). */
  isReplica: boolean;
}
