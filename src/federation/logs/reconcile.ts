/**
 * Log aggregation, completeness: a Member Node may write an entry dated before what the CN has already read
 * (a late writer, a clock behind, a long transaction). The forward read only looks back `overlapMs`, so older
 * dates are checked by count: getLogRecords with count 0 gives the node's `total` for a date range ("fromDate
 * inclusive and toDate exclusive"), compared with the entries stored from that node for the same range. A range
 * where the node has more is halved until it fits one page, which is then read again; the (node, entry id) key
 * stores only what was missing. When nothing is missing this costs one request. A run cut short by its request
 * budget leaves the rest to the next run, which skips the ranges already settled (one request each).
 */

import type { NodeContext } from "../../context/node-context.ts";
import type { LogSource } from "./harvest-node.ts";
import { storeHarvested } from "./store.ts";

export interface ReconcileOutcome {
  added: number;
  requests: number;
  /** False when the request budget ran out before every range was checked. */
  complete: boolean;
}

/** Checks the node's log dated before `before` and fetches what the CN misses, within `maxRequests`. */
export async function reconcileNodeLog(
  ctx: NodeContext,
  nodeId: string,
  source: LogSource,
  before: Date,
  { pageSize, maxRequests }: { pageSize: number; maxRequests: number },
): Promise<ReconcileOutcome> {
  const outcome: ReconcileOutcome = { added: 0, requests: 0, complete: true };
  const ask: LogSource["getLogRecords"] = (window) => {
    outcome.requests += 1;
    return source.getLogRecords(window);
  };
  const pending: [number, number][] = [[0, before.getTime()]];
  let first = true;
  while (pending.length > 0) {
    if (outcome.requests >= maxRequests) return { ...outcome, complete: false };
    const [from, to] = pending.pop() as [number, number];
    const fromDate = new Date(from);
    const toDate = new Date(to);
    const { total } = await ask({ fromDate, toDate, start: 0, count: 0 });
    if (total <= (await ctx.db.logProgress.countStored(nodeId, fromDate, toDate))) continue;
    if (total > pageSize && to - from > 1) {
      // Halving starts from the node's first entry, not from 1970 (fewer levels): logs list by dateLogged, and
      // should this node list otherwise, the range before the date found is still checked.
      const oldest = first
        ? (await ask({ toDate, start: 0, count: 1 })).items[0]?.dateLogged.getTime()
        : undefined;
      first = false;
      if (oldest !== undefined && oldest > from && oldest < to) {
        pending.push([oldest, to], [from, oldest]);
        continue;
      }
      const middle = from + Math.floor((to - from) / 2);
      pending.push([middle, to], [from, middle]);
      continue;
    }
    for (let start = 0; start < total; ) {
      const page = await ask({ fromDate, toDate, start, count: pageSize });
      if (page.items.length === 0) break;
      outcome.added += await storeHarvested(ctx, nodeId, page.items);
      start += page.items.length;
    }
  }
  return outcome;
}
