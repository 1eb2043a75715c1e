/**
 * CNCore.getLogRecords: "Returns consolidated Log for the whole infrastructure. A public caller may get an empty
 * result; full access needs a privileged account." The CN's event log holds its own events and those log
 * aggregation harvested from the Member Nodes (each with its node's identifier). CNs and administrators read
 * every record. Others get an empty log, unless `logReaders` is "readers": then the records about objects they
 * may read, as a Member Node answers them.
 */
import { isTrusted } from "../../auth/access.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import type { LogEntry, LogFilter, Page } from "../../db/types.ts";
import { readLog } from "../mn/core.ts";

export async function getLogRecords(
  ctx: NodeContext,
  call: CallInfo,
  filter: Omit<LogFilter, "readableBy">,
  start: number,
  count: number,
): Promise<Page<LogEntry>> {
  if (!isTrusted(call.session) && ctx.config.logReaders !== "readers") return { start, total: 0, items: [] };
  return readLog(ctx, call, filter, start, count);
}
