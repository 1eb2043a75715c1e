/**
 * Log aggregation, one Member Node: read its event log (MNCore.getLogRecords) from where the last run stopped and
 * store the entries in this CN's own event log, keeping the node's identifier. Each run starts a little before the
 * newest entry already stored; entries the node wrote later with an even earlier date are then found by comparing
 * counts (reconcile.ts). What is read twice is skipped by the (node, entry id) key, so an event is stored once
 * however often it is read.
 */

import type { NodeContext } from "../../context/node-context.ts";
import type { LogEntry, Slice } from "../../types/xml-documents/lists-xml.ts";
import { reconcileNodeLog } from "./reconcile.ts";
import { storeHarvested } from "./store.ts";

/** What aggregation needs of a Member Node (a D1Client is one). */
export interface LogSource {
  getLogRecords(window: {
    fromDate?: Date;
    toDate?: Date;
    start?: number;
    count?: number;
  }): Promise<Slice<LogEntry>>;
}

export interface HarvestOptions {
  /** Entries asked per request. */
  pageSize?: number;
  /** Requests per run; the rest is left to the next run. */
  maxPages?: number;
  /** How far before the newest stored date a run starts reading again. */
  overlapMs?: number;
}

export interface HarvestOutcome {
  /** Entries stored (new ones only). */
  added: number;
  pages: number;
  /** False when maxPages stopped the run before the end of the node's log. */
  complete: boolean;
  /** False when maxPages stopped the check of entries dated before the window (reconcile.ts) early. */
  olderChecked?: boolean;
}

const DEFAULTS = { pageSize: 1000, maxPages: 100, overlapMs: 10 * 60_000 };

export async function harvestNodeLog(
  ctx: NodeContext,
  nodeId: string,
  source: LogSource,
  options: HarvestOptions = {},
): Promise<HarvestOutcome> {
  const { pageSize, maxPages, overlapMs } = { ...DEFAULTS, ...options };
  const progress = await ctx.db.logProgress.read(nodeId);
  const windowStart = progress ? new Date(progress.harvestedTo.getTime() - overlapMs) : undefined;
  const forward = await readForward(ctx, nodeId, source, windowStart, { pageSize, maxPages });
  // Before the window: checked only once the node's newest entries are in (a first run reads everything).
  if (!forward.complete || windowStart === undefined) return forward;
  const older = await reconcileNodeLog(ctx, nodeId, source, windowStart, {
    pageSize,
    maxRequests: Math.max(1, maxPages - forward.pages),
  });
  // A check the budget cut short waits for the next periodic run (not queued again at once: a node whose counts
  // never agree must not keep the worker busy); ranges it settled are skipped then with one request each.
  return {
    added: forward.added + older.added,
    pages: forward.pages + older.requests,
    complete: true,
    olderChecked: older.complete,
  };
}

/**
 * Reads the node's log from `windowStart` (or its beginning) to its end, in up to maxPages requests: one window
 * for the whole run, paged by position, as the API pages it. The node counts the window once and keeps its place
 * (a d1node MN pages by keys underneath); moving fromDate on with every page instead made the node count the rest
 * of its log again for each page, a cost that grew with the square of the log (10 M entries: 10,000 counts).
 */
async function readForward(
  ctx: NodeContext,
  nodeId: string,
  source: LogSource,
  windowStart: Date | undefined,
  { pageSize, maxPages }: { pageSize: number; maxPages: number },
): Promise<HarvestOutcome> {
  let start = 0;
  let added = 0;
  let pages = 0;
  const read = (at: number) =>
    source
      .getLogRecords({ ...(windowStart ? { fromDate: windowStart } : {}), start: at, count: pageSize })
      .then(
        (page) => ({ page }),
        (error: unknown) => ({ error }),
      );
  // The next page is read while this one is stored (its position is known once this one is read).
  let reading = read(start);
  while (pages < maxPages) {
    const outcome = await reading;
    if ("error" in outcome) throw outcome.error;
    const page = outcome.page;
    pages += 1;
    const items = page.items;
    if (items.length === 0) return { added, pages, complete: true };
    const last = page.start + items.length >= page.total;
    if (!last && pages < maxPages) reading = read(start + items.length);
    // The page and the progress it makes commit together.
    const newest = new Date(Math.max(...items.map((e) => e.dateLogged.getTime())));
    added += await storeHarvested(ctx, nodeId, items, (tx, stored) =>
      ctx.db.logProgress.save(nodeId, newest, stored, tx),
    );
    start += items.length;
    if (last) return { added, pages, complete: true };
  }
  return { added, pages, complete: false };
}
