/** Stores a Member Node's log entries in the CN's event log, once per (node, entry id); returns how many were new. */

import type { NodeContext } from "../../context/node-context.ts";
import type { EventLog } from "../../db/types.ts";
import type { LogEntry } from "../../types/xml-documents/lists-xml.ts";

export function storeHarvested(
  ctx: NodeContext,
  nodeId: string,
  entries: readonly LogEntry[],
  alsoInTransaction?: Parameters<EventLog["addHarvested"]>[1],
): Promise<number> {
  return ctx.db.events.addHarvested(
    entries.map((entry) => ({
      ...entry,
      nodeIdentifier: entry.nodeIdentifier || nodeId,
      sourceNode: nodeId,
      sourceEntryId: entry.entryId,
    })),
    alsoInTransaction,
  );
}
