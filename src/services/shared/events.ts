/**
 * "Access events are recorded as log entries and read through getLogRecords" (API text, Events 2).
 * Entries of reads are queued and written in batches, off the request path; those of writes go into the write's
 * own transaction (`tx.events.add(logEntry(...))`), so that no acknowledged write lacks its entry after a crash.
 */

import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import type { NewLogEntry } from "../../db/types.ts";

export type EventName =
  | "create"
  | "read"
  | "update"
  | "delete"
  | "replicate"
  | "synchronization_failed"
  | "replication_failed";

export function logEvent(ctx: NodeContext, call: CallInfo, identifier: string, event: EventName): void {
  ctx.db.events.append(logEntry(ctx, call, identifier, event));
}

export function logEntry(
  ctx: NodeContext,
  call: CallInfo,
  identifier: string,
  event: EventName,
): NewLogEntry {
  return {
    identifier,
    event,
    ipAddress: call.ipAddress,
    userAgent: call.userAgent,
    subject: call.session.subject,
    dateLogged: new Date(),
    nodeIdentifier: ctx.config.nodeId,
  };
}
