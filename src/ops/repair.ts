/**
 * Repair from a replica: an object whose stored bytes the fixity audit found bad or missing is fetched again
 * from another Member Node holding a good copy. The holders are the CN's view of the object (its system metadata:
 * the authoritative Member Node and every replica whose status is "completed"), their base URLs the CN's node
 * list. Each holder is asked with MNReplication.getReplica ("called by a target Member Node to retrieve the
 * object from the source"), then MNRead.get, as this node (its credentials, src/federation/client.ts). The bytes
 * stream into the store's staging area, hashed on the way; only when their SHA-256 is the recorded content key,
 * their size the recorded size and their checksum the system metadata's are they committed, which replaces the
 * bad file atomically (a rename, or a server-side copy on S3). Nothing else changes: the object's row already
 * describes exactly these bytes.
 */
import type { Readable } from "node:stream";
import type { Config } from "../config/config.ts";
import type { AuditFinding, Database, RecordedFixity } from "../db/types.ts";
import { clientFor } from "../federation/client.ts";
import { digestForAlgorithm } from "../store/algorithms.ts";
import type { Digests, ObjectStore } from "../store/types.ts";
import type { Node } from "../types/node.ts";
import type { RepairBytes } from "./audit.ts";

export interface RepairSources {
  config: Readonly<Config>;
  db: Database;
  store: ObjectStore;
  /** Told why a holder could not give a good copy (the repair goes on with the next holder). */
  onSkip?: (pid: string, nodeId: string, why: string) => void;
}

/** A repair hook for the audit; it fails (and the finding stays unrepaired) when no CN is configured. */
export function repairFromReplicas(sources: RepairSources): RepairBytes {
  let nodes: Promise<Node[]> | undefined;
  const nodeList = (cn: string) => {
    nodes ??= clientFor(sources, cn).listNodes();
    nodes.catch(() => {
      nodes = undefined;
    });
    return nodes;
  };
  return async (object: RecordedFixity, _finding: AuditFinding) => {
    const cn = sources.config.cnBaseUrl;
    if (!cn) throw new Error("no Coordinating Node (cnBaseUrl) to find the object's other holders with");
    const sysmeta = await clientFor(sources, cn).getSystemMetadata(object.pid);
    const holders = [
      sysmeta.authoritativeMemberNode,
      ...sysmeta.replicas.filter((r) => r.replicationStatus === "completed").map((r) => r.replicaMemberNode),
    ].filter((id): id is string => id !== undefined && id !== sources.config.nodeId);
    const listed = await nodeList(cn);
    for (const nodeId of new Set(holders)) {
      const node = listed.find((n) => n.identifier === nodeId);
      if (!node) continue;
      const client = clientFor(sources, node.baseURL);
      for (const fetch of [client.getReplica, client.get]) {
        try {
          // Bounded by the recorded size: a holder sending more is stopped at the byte past it, before staging it.
          if (await replaceWith(sources, object, await fetch(object.pid, object.size))) return true;
          sources.onSkip?.(object.pid, nodeId, "its copy differs from the recorded digests");
          break;
        } catch (error) {
          sources.onSkip?.(object.pid, nodeId, error instanceof Error ? error.message : String(error));
        }
      }
    }
    return false;
  };
}

/** Stages the bytes and commits them only when they are the recorded ones; false (nothing kept) otherwise. */
export async function replaceWith(
  { db, store }: RepairSources,
  object: RecordedFixity,
  bytes: Readable,
): Promise<boolean> {
  const staged = await store.stage(bytes, {
    algorithm: object.checksum.algorithm,
    expectedSize: object.size,
  });
  try {
    if (staged.key !== object.contentKey || !matchesRecord(object, staged.digests)) return false;
    // As any commit (src/objects/ingest.ts): an intent first, so that bytes put back for an object deleted
    // meanwhile are collected, here or at the next start after a crash.
    // Held across processes too, so that a create of the same bytes elsewhere never sees them removed.
    return await db.contentKeys.hold(staged.key, async () => {
      await db.blobIntents.add(staged.key);
      await staged.commit();
      const referenced = (await db.objects.countByContentKey(staged.key)) > 0;
      if (!referenced) await store.remove(staged.key);
      await db.blobIntents.remove(staged.key);
      return referenced;
    });
  } finally {
    await staged.discard();
  }
}

function matchesRecord(object: RecordedFixity, digests: Digests): boolean {
  if (digests.size !== object.size || digests.sha256 !== object.sha256) return false;
  const actual = digestForAlgorithm(digests, object.checksum.algorithm);
  return actual !== undefined && actual === object.checksum.value.toLowerCase();
}
