/**
 * `--logs`: the source's event log (MNCore.getLogRecords, "MUST allow CNs and MAY allow more": the credentials
 * must be a CN's or an administrator's at the source) copied into this node's. Entries keep the source's node
 * identifier and entry id (`events.source_node` / `source_entry`), so an entry read twice is stored once. The log
 * is read up to the moment the run started, in pages; the newest dateLogged copied is where the next run starts.
 */
import type { Database } from "../db/types.ts";
import { type Clock, systemClock } from "../types/clock.ts";
import type { SourceNode } from "./source.ts";

const LOG_PAGE = 1000;

/** Copies the entries logged since the last run; resolves to how many were new here. */
export async function importLogs(
  db: Database,
  source: SourceNode,
  onPage: (added: number) => void,
  clock: Clock = systemClock,
): Promise<number> {
  const key = source.baseUrl;
  const fromDate = await db.importProgress.logsTo(key);
  const toDate = new Date(clock.now());
  let newest = fromDate;
  let added = 0;
  for (let start = 0; ; ) {
    const page = await source.getLogRecords({
      ...(fromDate ? { fromDate } : {}),
      toDate,
      start,
      count: LOG_PAGE,
    });
    if (page.items.length === 0) break;
    const entries = page.items.map(({ entryId, ...entry }) => ({
      ...entry,
      sourceNode: source.node.identifier,
      sourceEntryId: entryId,
    }));
    const stored = await db.events.addHarvested(entries);
    added += stored;
    onPage(stored);
    for (const entry of page.items) if (!newest || entry.dateLogged > newest) newest = entry.dateLogged;
    start += page.items.length;
    if (start >= page.total) break;
  }
  if (newest) await db.importProgress.saveLogsTo(key, newest);
  return added;
}
