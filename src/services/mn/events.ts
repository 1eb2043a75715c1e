/**
 * "Access events are recorded as log entries and read through getLogRecords" (API text, Events 2).
 * Entries are queued and written in batches, off the request path.
 */
import type { CallInfo, NodeContext } from "../context.ts";

export type EventName =
  | "create"
  | "read"
  | "update"
  | "delete"
  | "replicate"
  | "synchronization_failed"
  | "replication_failed";

export function logEvent(ctx: NodeContext, call: CallInfo, identifier: string, event: EventName): void {
  ctx.db.events.append({
    identifier,
    event,
    ipAddress: call.ipAddress,
    userAgent: call.userAgent,
    subject: call.session.subject,
    dateLogged: new Date(),
    nodeIdentifier: ctx.config.nodeId,
  });
}
