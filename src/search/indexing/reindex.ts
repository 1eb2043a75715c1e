/**
 * Indexing stored objects in bulk: the start-up catch-up (`indexMissing`: objects without a document) and
 * `d1node index` (every object, or the missing ones). Objects are read a page at a time, keyset by pid (memory
 * stays bounded whatever the node holds), their rows made in an extraction thread (rebuild/), and each page's
 * plain objects written in one transaction (resource maps one by one, so their members' package fields follow;
 * rebuild/batches.ts). A page whose write fails is indexed object by object; an object that still fails is logged (pid and error) and left without a
 * document, for the next catch-up. A full rebuild then removes the documents of objects that no longer exist.
 *
 * Another process may write meanwhile (PostgreSQL: a serving node, workers): after each page, an object whose
 * system metadata changed (or that went away) since it was read is indexed again as it now is, so a document
 * written from the older copy never outlives the node's own write.
 */

import type { SharedSqlite } from "../../db/engine/sqlite-sharing.ts";
import { codeOf, isStorageFull, storageFullMessage } from "../../db/engine/storage-full.ts";
import type { StoredObject } from "../../types/stored-object.ts";
import { type PreparedPage, preparePage, writePage } from "../rebuild/batches.ts";
import { createExtractPool, type ExtractPool } from "../rebuild/extract-pool.ts";
import { pendingTermsMover } from "../rebuild/pending-terms-mover.ts";
import type { RebuildEnd } from "../store/rebuild-state.ts";
import { guarded, IN_BULK } from "./hooks.ts";
import { type IndexContext, indexObject, indexTables, unindex } from "./indexer.ts";
import { countObjectPids, goneObjectPages, objectPidPages } from "./pid-walk.ts";

/** Documents per transaction. */
export const INDEX_BATCH = 200;

export interface ReindexOptions {
  /** Only objects that have no document (the start-up catch-up); else every object, stale documents removed. */
  missingOnly?: boolean;
  /** Objects per page and documents per transaction (default INDEX_BATCH). */
  batchSize?: number;
  /** Called after each page and each removal pass, with the running counts. */
  onProgress?: (progress: Readonly<ReindexProgress>) => void;
  /** A full run on an empty index: called as the deferred indexes' builds start and as each is done. */
  onEnd?: (end: RebuildEnd) => void;
  /** Stops after the page being written (the rest is left for the next run). */
  signal?: AbortSignal;
  /** A full run on an empty index: drop the secondary indexes and build them at the end (default true). */
  deferIndexes?: boolean;
  /** Threads making rows from the objects' bytes while pages are written (default extractThreads(); 0: none). */
  threads?: number;
}

/**
 * Extraction threads of a bulk run. When threads write the rows (SQLite's one writing thread, or PostgreSQL's
 * extraction threads each on its own connection): two, so that a page is made while another is written (the
 * node's thread only reads pages). Else one, beside the node's thread writing (two cores between them and the
 * database).
 */
export function extractThreads(writing: boolean): number {
  return writing ? 2 : 1;
}

export interface ReindexProgress {
  /** Objects read. */
  seen: number;
  /** Documents written. */
  written: number;
  /** Objects (or stale documents) that could not be indexed (or removed); each was logged. */
  failed: number;
  /** Documents removed because their object no longer exists. */
  removed: number;
}

/**
 * Index stored objects page by page; resolves to the counts. While the extraction thread makes a page's rows the
 * page before is written, and the event loop gets a turn between pages (a serving node answers meanwhile: no
 * request waits for more than one page's write).
 * A full run records how far it got (`rebuildState`) and resumes there when run again after an
 * interruption; started on an empty index it builds the secondary indexes once, at its end.
 */
export async function reindexObjects(
  ctx: IndexContext,
  options: ReindexOptions = {},
): Promise<ReindexProgress> {
  const size = options.batchSize ?? INDEX_BATCH;
  const missingOnly = options.missingOnly ?? false;
  const progress: ReindexProgress = { seen: 0, written: 0, failed: 0, removed: 0 };
  const search = indexTables(ctx);
  const state = missingOnly
    ? undefined
    : ((await search.rebuildState()) ?? (await search.beginRebuild(options.deferIndexes ?? true)));
  const threads = options.threads ?? extractThreads(true);
  // Started at the first page (a start-up with nothing to index changes nothing). The threads write the rows on
  // connections of their own (SQLite: the file shared with them); the node's thread keeps answering.
  let shared: SharedSqlite | undefined;
  let started: ExtractPool | undefined;
  const pool = () => {
    if (started) return started;
    shared = threads > 0 ? ctx.db.sqliteSharing?.share() : undefined;
    const postgresUrl = threads > 0 ? ctx.db.postgresUrl : undefined;
    const writes = shared ? { sqlite: shared } : postgresUrl ? { postgresUrl } : undefined;
    started = createExtractPool(options.threads ?? extractThreads(writes !== undefined), writes);
    return started;
  };
  // Pages handed to the threads and not yet written: as many as there are threads, so that a thread has its
  // next page queued when it finishes one (the pages go round the threads in turn).
  const ahead = Math.max(threads, 1);
  const pages: PreparedPage[] = [];
  // A rebuild from empty (its indexes deferred) moves the terms' pending list in large batches as it goes.
  const mover = state?.deferredIndexes
    ? pendingTermsMover(() => search.movePendingTerms(), ctx.log)
    : undefined;
  const write = async (page: PreparedPage) => {
    const failed = (await writePage(ctx, page)) + (await rewriteChanged(ctx, page.objects));
    const last = page.pids.at(-1);
    // SQLite: noted by the writing thread, whose page cache another connection's commit would drop.
    if (state && last !== undefined && !started?.progressed(last)) await search.rebuildProgressed(last);
    progress.seen += page.pids.length;
    progress.written += page.objects.length - failed;
    progress.failed += failed;
    mover?.written(page.pids.length);
    options.onProgress?.(progress);
  };
  const pidPages = objectPidPages(ctx, state?.after, size, missingOnly);
  try {
    while (!options.signal?.aborted) {
      const next = await pidPages.next();
      if (next.done) break;
      pages.push(await preparePage(ctx, pool(), next.value));
      const oldest = pages.length > ahead ? pages.shift() : undefined;
      if (oldest) await write(oldest);
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (let page = pages.shift(); page; page = pages.shift()) await write(page);
    await mover?.settled();
    if (state && !options.signal?.aborted) {
      await removeStale(ctx, progress);
      // SQLite: the writing thread builds the dropped indexes (minutes at a million documents), the node's
      // thread answering meanwhile.
      if (!(await started?.finishRebuild(options.onEnd))) await search.finishRebuild(options.onEnd);
      options.onProgress?.(progress);
    }
  } catch (error) {
    // Stopped at the first object (what was written stays; a full rebuild resumes after its last page).
    if (isStorageFull(error))
      throw Object.assign(new Error(storageFullMessage(error)), { code: codeOf(error) });
    throw error;
  } finally {
    await mover?.settled();
    await started?.close();
    shared?.release();
  }
  return progress;
}

/** How many objects `reindexObjects` will read (for progress reports; a full run resumes after `after`). */
export async function countObjectsToIndex(
  ctx: IndexContext,
  missingOnly: boolean,
): Promise<{ total: number; resumedAfter?: string }> {
  const after = missingOnly ? undefined : (await indexTables(ctx).rebuildState())?.after;
  const total = await countObjectPids(ctx, after, missingOnly);
  return after === undefined ? { total } : { total, resumedAfter: after };
}

/**
 * The catch-up: index every object that has no document (a crash between a commit and its indexing, objects
 * loaded by `d1node load`), in batches, until done or `signal` aborts. Resolves to how many documents were written.
 */
export async function indexMissing(ctx: IndexContext, signal?: AbortSignal): Promise<number> {
  const started = Date.now();
  let reported = 0;
  // A full rebuild left unfinished (an interrupted `d1node index`) is finished instead.
  const unfinished = (await indexTables(ctx).rebuildState()) !== undefined;
  if (unfinished) ctx.log?.info({}, "search index: resuming the unfinished full rebuild");
  const { seen, written, failed } = await reindexObjects(ctx, {
    missingOnly: !unfinished,
    ...(signal ? { signal } : {}),
    onProgress: (progress) => {
      if (reported > 0 && progress.seen < reported + 100_000) return;
      reported = progress.seen;
      ctx.log?.info({ indexed: progress.written }, "search index: indexing objects without a document");
    },
    onEnd: ({ done, total, last }) => {
      if (last)
        ctx.log?.info({ index: last.index, seconds: last.seconds, done, total }, "search index: built");
      else if (total > 0) ctx.log?.info({ total }, "search index: building the indexes the rebuild dropped");
    },
  });
  if (seen > 0 && !signal?.aborted)
    ctx.log?.info(
      { indexed: written, failed, ms: Date.now() - started },
      "search index: objects without a document indexed",
    );
  return written;
}

export interface IndexCatchUp {
  /** Resolves to the documents written once the catch-up ends (done or stopped; a failure is logged). */
  done: Promise<number>;
  /** Ends it after the page being written. */
  stop(): Promise<void>;
}

/**
 * The start-up catch-up in the background: a node answers requests at once, however many objects lack a
 * document (a load of millions of objects indexes for hours); search answers grow as the documents are written.
 */
export function startIndexCatchUp(ctx: IndexContext): IndexCatchUp {
  const abort = new AbortController();
  const done = indexMissing(ctx, abort.signal).catch((error: unknown) => {
    if (!abort.signal.aborted) ctx.log?.warn({ err: error }, "search index: the start-up catch-up failed");
    return 0;
  });
  return {
    done,
    async stop() {
      abort.abort();
      await done;
    },
  };
}

/** Index again, as they now are, the objects changed or removed since they were read; resolves to failures. */
async function rewriteChanged(ctx: IndexContext, objects: StoredObject[]): Promise<number> {
  if (objects.length === 0) return 0;
  const now = await ctx.db.objects.versionsOf(objects.map((object) => object.sysmeta.identifier));
  let failed = 0;
  for (const { sysmeta } of objects) {
    const pid = sysmeta.identifier;
    const version = now.get(pid);
    const unchanged =
      version !== undefined &&
      version.serialVersion === sysmeta.serialVersion &&
      version.dateModified === sysmeta.dateSysMetadataModified?.getTime();
    if (unchanged) continue;
    if (!(await guarded(ctx, pid, () => indexObject(ctx, pid), IN_BULK))) failed++;
  }
  return failed;
}

/** Remove documents (and resource-map relations) whose object no longer exists. */
async function removeStale(ctx: IndexContext, progress: ReindexProgress): Promise<void> {
  for (const kind of ["documents", "maps"] as const) {
    for await (const pids of goneObjectPages(ctx, kind)) {
      for (const pid of pids) {
        if (!(await guarded(ctx, pid, () => unindex(ctx, pid), IN_BULK))) progress.failed++;
        else if (kind === "documents") progress.removed++;
      }
    }
  }
}
