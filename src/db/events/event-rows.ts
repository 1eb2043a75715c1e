/** The event log's rows: made from new, queued and harvested entries, and read back as entries. */
import type { EventsTable } from "../schema.ts";
import type { HarvestedLogEntry, LogEntry, NewLogEntry } from "../types.ts";

export type Row = Omit<EventsTable, "id"> & { id: number };
export type NewRow = Omit<EventsTable, "id">;
/** A harvested entry's row: its source is always named. */
export type HarvestedRow = NewRow & { source_node: string; source_entry: string };

/** The columns newRow fills (a harvested row adds its source). */
export const EVENT_COLUMNS = [
  "pid",
  "ip",
  "user_agent",
  "subject",
  "event",
  "date_logged",
  "node_id",
] as const;

/** The rows of a queue of flat values (append). */
export function rowsOf(values: readonly (string | number)[]): NewRow[] {
  const rows: NewRow[] = [];
  for (let i = 0; i < values.length; i += EVENT_COLUMNS.length) {
    rows.push({
      pid: values[i] as string,
      ip: values[i + 1] as string,
      user_agent: values[i + 2] as string,
      subject: values[i + 3] as string,
      event: values[i + 4] as string,
      date_logged: values[i + 5] as number,
      node_id: values[i + 6] as string,
    });
  }
  return rows;
}

export function newRow(entry: NewLogEntry): NewRow {
  return {
    pid: entry.identifier,
    ip: entry.ipAddress,
    user_agent: entry.userAgent,
    subject: entry.subject,
    event: entry.event,
    date_logged: entry.dateLogged.getTime(),
    node_id: entry.nodeIdentifier,
  };
}

/**
 * newRow's object with its source added, not spread into a new one: a harvest makes one per entry
 * (docs/decisions.md, "Hot paths").
 */
export function harvestedRow(entry: HarvestedLogEntry): HarvestedRow {
  const row = newRow(entry) as HarvestedRow;
  row.source_node = entry.sourceNode;
  row.source_entry = entry.sourceEntryId;
  return row;
}

export function toEntry(row: Row): LogEntry {
  return {
    entryId: String(row.id),
    identifier: row.pid,
    ipAddress: row.ip,
    userAgent: row.user_agent,
    subject: row.subject,
    event: row.event,
    dateLogged: new Date(Number(row.date_logged)),
    nodeIdentifier: row.node_id,
  };
}
