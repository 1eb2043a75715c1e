/** List paging and the getLogRecords query, shared by the MN and CN routes. */
import type { LogFilter } from "../db/types.ts";
import { InvalidRequest } from "../errors/exceptions.ts";
import { dateRange, integerParam, type Query, stringParam } from "./params.ts";

export const DEFAULT_COUNT = 1000;
/** A node "may return fewer records than count; the caller uses total to page". */
export const MAX_COUNT = 10000;

/** The getLogRecords query (MN and CN): fromDate, toDate, event, idFilter, start, count. */
export function logQuery(query: Query): {
  filter: Omit<LogFilter, "readableBy">;
  start: number;
  count: number;
} {
  // v2 names the prefix filter idFilter, v1 pidFilter; accept both on either version.
  const idFilter = stringParam(query, "idFilter") ?? stringParam(query, "pidFilter");
  const event = stringParam(query, "event");
  if (event !== undefined && event.trim() === "") throw new InvalidRequest("Parameter event is empty.");
  const start = integerParam(query, "start", 0);
  const count = Math.min(integerParam(query, "count", DEFAULT_COUNT), MAX_COUNT);
  const filter = { ...dateRange(query), ...(event ? { event } : {}), ...(idFilter ? { idFilter } : {}) };
  return { filter, start, count };
}
