/**
 * A Member Node pulls an accepted replica (MNReplication.replicate) from its source node: the source's base URL
 * from the CN's node list, the bytes with MNRead.getReplica streamed into the store and hashed in the same pass,
 * compared with the size and checksum of the CN's system metadata, then committed as a replica (crash-safe, see
 * src/objects/ingest.ts) and indexed. The outcome is reported to the CN by its own task, so that a CN that
 * is away does not make the node pull again; a completed pull queues it in the replica's own transaction. Failures that retrying cannot mend, or the last attempt, are
 * reported as failed with their description.
 */

import type { NodeContext } from "../../context/node-context.ts";
import type { TaskQueue } from "../../db/types.ts";
import { D1Error, IdentifierNotUnique, NotFound, ServiceFailure } from "../../errors/exceptions.ts";
import { bytesWanted } from "../../objects/changes.ts";
import { stageHolding } from "../../objects/held-bytes.ts";
import { checkDigests, ingest, removeObject } from "../../objects/ingest.ts";
import { digestOfStoredBytes } from "../../services/mn/stored-digest.ts";
import { type PullPayload, REPORT_REPLICA_STATUS } from "../../tasks/kinds.ts";
import type { Task } from "../../tasks/worker.ts";
import { parseSystemMetadata } from "../../types/index.ts";
import type { Node } from "../../types/node.ts";
import type { ApiVersion, SystemMetadata } from "../../types/sysmeta.ts";
import { clientFor } from "../client.ts";
import type { ReportPayload } from "./report.ts";

/** Runs of a pull before it is reported failed (the task queue backs off 2 s, 4 s, 8 s, ... in between). */
export const PULL_ATTEMPTS = 5;

/** Remote answers that another try would not change. */
const FINAL: ReadonlySet<string> = new Set([
  "NotFound",
  "NotAuthorized",
  "InvalidToken",
  "InvalidRequest",
  "InvalidSystemMetadata",
  "IdentifierNotUnique",
  "NotImplemented",
]);

export async function pullReplicaTask(ctx: NodeContext, task: Task): Promise<void> {
  const payload = task.payload as PullPayload;
  const sysmeta = parseSystemMetadata(payload.sysmeta);
  const pid = sysmeta.identifier;
  const report = (tasks: TaskQueue, status: ReportPayload["status"], description?: string) =>
    tasks.enqueue(REPORT_REPLICA_STATUS, pid, { pid, status, ...(description ? { description } : {}) });
  try {
    await pullReplica(ctx, sysmeta, payload.sourceNode, payload.version, (tasks) =>
      report(tasks, "completed"),
    );
  } catch (error) {
    const final = error instanceof D1Error && FINAL.has(error.exception);
    if (!final && task.attempts < PULL_ATTEMPTS) throw error;
    const why = error instanceof D1Error ? `${error.exception}: ${error.description}` : String(error);
    await report(
      ctx.tasks,
      "failed",
      `${ctx.config.nodeId} could not replicate "${pid}" from ${payload.sourceNode}: ${why}`,
    );
  }
}

/** Pulls the replica; `completed` queues what follows on the queue of the transaction that stores it. */
export async function pullReplica(
  ctx: NodeContext,
  sysmeta: SystemMetadata,
  sourceNodeId: string,
  version: ApiVersion,
  completed: (tasks: TaskQueue) => Promise<void>,
): Promise<void> {
  const pid = sysmeta.identifier;
  const held = await ctx.db.objects.get(pid);
  if (held) {
    if (!held.isReplica)
      throw new D1Error("InvalidRequest", `"${pid}" is held here as an original.`, { pid });
    // Asked again (an earlier copy was lost or found invalid): keep it when its bytes are right, else replace it.
    const actual = await digestOfStoredBytes(ctx, held, sysmeta.checksum.algorithm).catch(() => undefined);
    if (actual?.size === sysmeta.size && actual.value === sysmeta.checksum.value.toLowerCase()) {
      return completed(ctx.tasks);
    }
    await removeObject(ctx, "replication", held);
  }
  const source = await findNode(ctx, sourceNodeId);
  // The client gives up when the headers are late or the bytes stop coming, never on a long transfer.
  const bytes = await clientFor(ctx, source.baseURL, { version }).getReplica(pid, sysmeta.size);
  const options = { algorithm: sysmeta.checksum.algorithm, expectedSize: sysmeta.size };
  const staged = await stageHolding(ctx.store, bytes, options, bytesWanted(ctx.changes, sysmeta.formatId));
  try {
    checkDigests(sysmeta, staged.digests);
    await ingest(ctx, "replication", staged, async (tx, contentKey) => {
      await tx.objects.insert({ sysmeta, contentKey, digests: staged.digests, isReplica: true });
      await completed(tx.tasks);
    }).catch(async (error: unknown) => {
      // A pull of the same object that ran at the same time stored it first: that copy is checked bytes too.
      const stored = error instanceof IdentifierNotUnique ? await ctx.db.objects.get(pid) : undefined;
      if (!stored?.isReplica) throw error;
      await completed(ctx.tasks);
    });
  } finally {
    await staged.discard();
  }
}

/** The CN's node list, reused for a minute (every pull needs its source's base URL). */
const NODE_LIST_TTL_MS = 60_000;
const nodeLists = new WeakMap<NodeContext, { until: number; nodes: Promise<Node[]> }>();

/** "sourceNode (NodeReference text part, resolved through the CN registry)". */
async function findNode(ctx: NodeContext, nodeId: string): Promise<Node> {
  const cn = ctx.config.cnBaseUrl;
  if (!cn) throw new ServiceFailure("This node knows no Coordinating Node to resolve the source node with.");
  const listed = async (fresh: boolean) => {
    const cached = nodeLists.get(ctx);
    if (!fresh && cached && cached.until > Date.now()) return cached.nodes;
    const nodes = clientFor(ctx, cn).listNodes();
    nodeLists.set(ctx, { until: Date.now() + NODE_LIST_TTL_MS, nodes });
    nodes.catch(() => nodeLists.delete(ctx));
    return nodes;
  };
  const find = (nodes: Node[]) => nodes.find((n) => n.identifier === nodeId);
  // A node missing from a remembered list may have been approved since: ask the CN again.
  const node = find(await listed(false)) ?? find(await listed(true));
  if (!node) throw new NotFound(`The Coordinating Node lists no node ${nodeId}.`);
  return node;
}
