/**
 * The write core's subscriber for DOIs: inside the write's transaction, a doi-registration task for each of the
 * node's DOIs whose record changes (the DOI's own object created, changed or removed; its neighbours' changes
 * that alter its relations: a new version obsoletes it, a new resource map aggregates it).
 */

import type { NodeContext } from "../context/node-context.ts";
import type { TaskQueue } from "../db/types.ts";
import type { ObjectChange } from "../objects/changes.ts";
import { isResourceMapFormat, parseResourceMap, ResourceMapError } from "../ore/index.ts";
import { DOI_REGISTRATION } from "../tasks/kinds.ts";
import { nodeDoiOf } from "./identifiers.ts";
import { readBytes } from "./read-bytes.ts";

/** Larger resource maps are not read inside the write (their members' records catch up on their next change). */
const MAX_MAP_BYTES = 16 * 1024 * 1024;

/** Replicas and harvested copies are registered by the node that holds the original. */
const REGISTERING_ORIGINS = new Set(["client", "coordinating-node", "import"]);

export async function queueDoiRegistrations(
  ctx: Pick<NodeContext, "config"> & Partial<Pick<NodeContext, "store">>,
  tasks: TaskQueue,
  changes: readonly ObjectChange[],
): Promise<void> {
  if (!ctx.config.doiPrefix || ctx.config.role === "cn") return;
  const dois = new Set<string>();
  const consider = (pid: string | undefined) => {
    if (pid && nodeDoiOf(ctx.config, pid)) dois.add(pid);
  };
  for (const change of changes) {
    if (!REGISTERING_ORIGINS.has(change.origin)) continue;
    if (change.kind === "removed") consider(change.pid);
    else if (change.kind === "sysmeta") consider(change.sysmeta.identifier);
    else {
      const { sysmeta, isReplica } = change.object;
      if (isReplica) continue;
      consider(sysmeta.identifier);
      consider(sysmeta.obsoletes);
      if (isResourceMapFormat(sysmeta.formatId)) {
        // The bytes are in place before the row is written (src/objects/ingest.ts).
        const readable = ctx.store && change.object.digests.size <= MAX_MAP_BYTES;
        const bytes =
          change.bytes ??
          (readable && ctx.store ? await readBytes({ store: ctx.store }, change.object) : undefined);
        for (const member of bytes ? await membersOf(bytes) : []) consider(member);
      }
    }
  }
  for (const pid of dois) await tasks.enqueue(DOI_REGISTRATION, pid, null);
}

async function membersOf(bytes: Buffer): Promise<string[]> {
  try {
    return (await parseResourceMap(bytes)).members;
  } catch (error) {
    if (error instanceof ResourceMapError) return [];
    throw error;
  }
}
