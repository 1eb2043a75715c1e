/**
 * A Member Node tells the CN how a replication ended (CNReplication.setReplicationStatus, as itself). Retried
 * while the CN cannot be reached. When the CN refuses a completed report (it no longer expects this replica:
 * the request timed out and went elsewhere, or the object is gone), the copy is removed again, since nothing
 * would ever list it.
 */

import type { NodeContext } from "../../context/node-context.ts";
import { D1Error } from "../../errors/exceptions.ts";
import { removeObject } from "../../objects/ingest.ts";
import { PermanentTaskError, type Task } from "../../tasks/worker.ts";
import { clientFor } from "../client.ts";

export interface ReportPayload {
  pid: string;
  status: "completed" | "failed";
  description?: string;
}

export async function reportReplicaStatusTask(ctx: NodeContext, task: Task): Promise<void> {
  const { pid, status, description } = task.payload as ReportPayload;
  const cn = ctx.config.cnBaseUrl;
  if (!cn) throw new PermanentTaskError("This node knows no Coordinating Node to report to.");
  try {
    await clientFor(ctx, cn).setReplicationStatus(pid, ctx.config.nodeId, status, description);
  } catch (error) {
    const refused =
      error instanceof D1Error && (error.exception === "InvalidRequest" || error.exception === "NotFound");
    if (!refused) throw error; // the CN is away: retried with backoff
    if (status !== "completed") return;
    const held = await ctx.db.objects.get(pid);
    if (held?.isReplica) {
      await removeObject(ctx, "replication", held);
    }
  }
}
