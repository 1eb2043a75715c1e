/**
 * Task handlers of change propagation. On the CN, `sysmeta-changed` calls MNRead.systemMetadataChanged on one
 * Member Node; a node that cannot be reached (or fails) is tried again with growing delays, for up to a week. On
 * an MN, `refresh-sysmeta` reads the CN's copy and applies it when it is newer.
 */

import type { NodeContext } from "../../context/node-context.ts";
import { D1Error } from "../../errors/exceptions.ts";
import {
  changeKey,
  REFRESH_SYSMETA,
  type RefreshPayload,
  SYSMETA_CHANGED,
  type SysmetaChangedPayload,
} from "../../tasks/kinds.ts";
import { PermanentTaskError, type Task } from "../../tasks/worker.ts";
import { clientFor } from "../client.ts";
import { deliverChange, versionFor } from "./deliver.ts";
import { ForeignSysmetaError, refreshFromCn } from "./refresh.ts";

const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 3_600_000;
const GIVE_UP_MS = 7 * 24 * 3_600_000;

/** The delay before delivery attempt `failures + 1`: 5 s doubling, at most an hour. */
export function redeliveryDelayMs(failures: number): number {
  return Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1), MAX_RETRY_MS);
}

export async function runSysmetaChanged(ctx: NodeContext, task: Task): Promise<void> {
  const payload = task.payload as SysmetaChangedPayload;
  const { pid, nodeId } = payload;
  try {
    await deliverChange(ctx, pid, nodeId, (node) =>
      clientFor(ctx, node.baseURL, { version: versionFor(node), timeoutMs: 15_000 }),
    );
  } catch (error) {
    // The node answered with a DataONE exception other than ServiceFailure: asking again will not help.
    if (error instanceof D1Error && error.exception !== "ServiceFailure") {
      throw new PermanentTaskError(`${nodeId} refused the change of "${pid}": ${error.message}`);
    }
    const failures = (payload.failures ?? 0) + 1;
    const failingSince = payload.failingSince ?? Date.now();
    if (Date.now() - failingSince > GIVE_UP_MS) {
      throw new PermanentTaskError(
        `${nodeId} has not taken the change of "${pid}" for a week: ${String(error)}`,
      );
    }
    // Queued again rather than failed, so that an outage longer than the worker's retries is waited out.
    const next: SysmetaChangedPayload = { pid, nodeId, failures, failingSince };
    await ctx.tasks.enqueue(SYSMETA_CHANGED, changeKey(nodeId, pid), next, {
      runAt: new Date(Date.now() + redeliveryDelayMs(failures)),
    });
  }
}

export async function runRefreshSysmeta(ctx: NodeContext, task: Task): Promise<void> {
  const { pid } = task.payload as RefreshPayload;
  const cnBaseUrl = ctx.config.cnBaseUrl;
  if (!cnBaseUrl) throw new PermanentTaskError(`No cnBaseUrl is set: "${pid}" cannot be refreshed.`);
  try {
    await refreshFromCn(ctx, pid, clientFor(ctx, cnBaseUrl, { version: "v2" }));
  } catch (error) {
    if (error instanceof ForeignSysmetaError) throw new PermanentTaskError(error.message);
    if (error instanceof D1Error && ["NotFound", "NotAuthorized", "InvalidToken"].includes(error.exception)) {
      throw new PermanentTaskError(`The CN refused the system metadata of "${pid}": ${error.message}`);
    }
    throw error;
  }
}

/** Refresh requests recorded (table sysmeta_refresh) before they became tasks: queued once at start-up. */
export async function queueRecordedRefreshes(ctx: NodeContext): Promise<void> {
  for (const { pid } of await ctx.db.sysmetaRefresh.pending()) {
    const payload: RefreshPayload = { pid };
    await ctx.tasks.enqueue(REFRESH_SYSMETA, pid, payload);
    await ctx.db.sysmetaRefresh.done(pid);
  }
}
