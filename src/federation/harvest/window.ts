/**
 * Paging through one Member Node's listObjects, window by window. A window runs from where the last one ended
 * (harvestedTo, or the node's lastHarvested) to a moment a little before it opened: "lag" leaves time for
 * writes that took their dateSysMetadataModified before they committed, and for clocks that differ slightly.
 *
 * Pages advance by date where they can: when a page is in date order, the next one asks fromDate = the page's
 * latest date (start 0), so an object modified meanwhile (which leaves the window) cannot shift a later one
 * past the cursor. Objects at that date are listed again; the synchronizer sees they are unchanged. A page whose
 * objects all share one date (or a node that does not list in date order) advances by start.
 *
 * "The node MUST at least support the fromDate filter": a node rejecting toDate, or start and count, with
 * InvalidRequest or NotImplemented is asked again without them, and the choice is remembered.
 */

import {
  type HarvestProgress,
  type HarvestProgressStore,
  LIST_PARAMS,
  type ListParams,
  type OpenWindow,
} from "../../db/cn/harvest-progress.ts";
import { D1Error } from "../../errors/exceptions.ts";
import type { ObjectInfo, Slice } from "../../types/index.ts";
import type { ListWindow } from "../client.ts";

export interface Lister {
  listObjects(window: ListWindow): Promise<Slice<ObjectInfo>>;
}

export interface WindowOptions {
  nodeId: string;
  lister: Lister;
  progress: HarvestProgressStore;
  /** Synchronizes the objects of one page; throws when the page should be tried again later. */
  processPage(items: ObjectInfo[]): Promise<void>;
  /** Where a first harvest starts: the Node document's lastHarvested, if any. */
  lastHarvested: Date | undefined;
  now?: Date;
  lagMs?: number;
  pageSize?: number;
}

export interface WindowResult {
  /** The new harvestedTo; unchanged when there was nothing to harvest. */
  harvestedTo: Date | undefined;
  pages: number;
  objects: number;
  /** Whether this window started from nothing (a complete harvest of the node). */
  complete: boolean;
}

export const DEFAULT_PAGE_SIZE = 1000;
export const DEFAULT_LAG_MS = 2000;

function isRejection(error: unknown): boolean {
  return (
    error instanceof D1Error && (error.exception === "InvalidRequest" || error.exception === "NotImplemented")
  );
}

function request(
  params: ListParams,
  from: Date | undefined,
  to: Date,
  start: number,
  count: number,
): ListWindow {
  const window: ListWindow = from ? { fromDate: from } : {};
  if (params === "window") window.toDate = to;
  if (params !== "fromDate") Object.assign(window, { start, count });
  return window;
}

const inDateOrder = (items: ObjectInfo[]) =>
  items.every(
    (item, i) =>
      i === 0 || item.dateSysMetadataModified >= (items[i - 1] as ObjectInfo).dateSysMetadataModified,
  );

interface Cursor {
  from: Date | undefined;
  start: number;
}

/** A listing's outcome, never a rejected promise (a page listed ahead may not be awaited when one fails). */
const settled = (listing: Promise<Slice<ObjectInfo>>) =>
  listing.then(
    (page) => ({ page }),
    (error: unknown) => ({ error }),
  );

/** Where the page after `page` starts, or undefined when the window is listed to its end. */
function nextCursor(page: Slice<ObjectInfo>, window: OpenWindow, paged: boolean): Cursor | undefined {
  const ordered = inDateOrder(page.items);
  const last = page.items.at(-1)?.dateSysMetadataModified;
  const listedAll = page.items.length === 0 || page.start + page.items.length >= page.total;
  const pastWindow = ordered && last !== undefined && last >= window.to;
  if (listedAll || pastWindow) return undefined;
  if (ordered && last !== undefined && (window.cursorFrom === undefined || last > window.cursorFrom)) {
    return { from: last, start: 0 };
  }
  if (paged) return { from: window.cursorFrom, start: window.cursorStart + page.items.length };
  // fromDate alone, and the page cannot move the date on: this is as far as the node can be listed.
  return undefined;
}

/** Harvests one window to its end (resuming an open one), saving the position after every page. */
export async function harvestWindow(options: WindowOptions): Promise<WindowResult> {
  const { nodeId, lister, progress: store } = options;
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const saved = await store.load(nodeId);
  const progress: HarvestProgress = saved ?? {
    harvestedTo: options.lastHarvested,
    window: undefined,
    listParams: "window",
  };
  const complete = progress.harvestedTo === undefined;
  if (!progress.window) {
    const to = new Date((options.now ?? new Date()).getTime() - (options.lagMs ?? DEFAULT_LAG_MS));
    if (progress.harvestedTo && progress.harvestedTo >= to) {
      return { harvestedTo: progress.harvestedTo, pages: 0, objects: 0, complete: false };
    }
    progress.window = { to, cursorFrom: progress.harvestedTo, cursorStart: 0 };
    await store.save(nodeId, progress);
  }
  const window = progress.window;
  let pages = 0;
  let objects = 0;
  const list = (cursor: Cursor) =>
    settled(lister.listObjects(request(progress.listParams, cursor.from, window.to, cursor.start, pageSize)));
  // The next page is listed while this one is synchronized (its position comes from the listing alone).
  let listing = list({ from: window.cursorFrom, start: window.cursorStart });
  for (;;) {
    const listed = await listing;
    if ("error" in listed) {
      const next = LIST_PARAMS[LIST_PARAMS.indexOf(progress.listParams) + 1];
      if (!isRejection(listed.error) || next === undefined) throw listed.error;
      progress.listParams = next;
      await store.save(nodeId, progress);
      listing = list({ from: window.cursorFrom, start: window.cursorStart });
      continue;
    }
    const page = listed.page;
    pages++;
    // Without toDate the node lists past the window's end; those objects belong to the next window.
    const items = page.items.filter((item) => item.dateSysMetadataModified < window.to);
    const cursor = nextCursor(page, window, progress.listParams !== "fromDate");
    if (cursor) listing = list(cursor);
    await options.processPage(items);
    objects += items.length;
    if (!cursor) break;
    window.cursorFrom = cursor.from;
    window.cursorStart = cursor.start;
    await store.save(nodeId, progress);
  }
  progress.harvestedTo = window.to;
  progress.window = undefined;
  await store.save(nodeId, progress);
  return { harvestedTo: window.to, pages, objects, complete };
}
