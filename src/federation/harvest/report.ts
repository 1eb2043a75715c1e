/**
 * Problems with a harvested object: "synchronizationFailed: Called by a CN; the MN records the problem" (document
 * 1, MNRead), and a synchronization_failed entry in the CN's own event log.
 */
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { logEvent } from "../../services/shared/events.ts";

/** The CN's own background work, as the event log records it. */
export function harvesterCall(ctx: NodeContext): CallInfo {
  const subject = ctx.config.nodeSubject;
  return {
    session: { subject, subjects: new Set([subject]), authenticated: true, isAdmin: false, isCn: true },
    ipAddress: "127.0.0.1",
    userAgent: "d1node harvester",
  };
}

export interface FailureReceiver {
  synchronizationFailed(pid: string, description: string): Promise<void>;
}

/** Tells the Member Node and logs the event; a node that cannot be told is not a reason to stop harvesting. */
export async function reportSyncFailure(
  ctx: NodeContext,
  node: FailureReceiver,
  pid: string,
  description: string,
): Promise<void> {
  logEvent(ctx, harvesterCall(ctx), pid, "synchronization_failed");
  await node.synchronizationFailed(pid, description).catch(() => undefined);
}
