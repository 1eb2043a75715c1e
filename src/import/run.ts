/**
 * One `d1node import` run: objects the source lists, window by window as the CN harvests (the same paging:
 * position saved after every page, listObjects parameters the source refuses left out), each page copied a few
 * objects at once and then indexed for search; then, with `logs`, the event log. What failed before is tried
 * first. A run stopped at any point (killed, the source gone, Ctrl-C) continues where it stopped the next time,
 * and never copies an object twice: an object held as the source lists it is skipped.
 *
 * The window ends when the run starts: every object the source holds then is copied (a migration's last run, once
 * the source takes no more writes, leaves nothing behind). The next run lists again from two seconds before that
 * end, for writes the source dated before it committed them. What the source lists as changed after the run
 * started is counted (`deferred`), for the next run.
 */
import type { ImportFailure } from "../db/types.ts";
import { D1Error } from "../errors/exceptions.ts";
import { inLanes } from "../federation/harvest/page.ts";
import { DEFAULT_LAG_MS, harvestWindow } from "../federation/harvest/window.ts";
import { type IndexContext, indexMissing, indexNewObjects, indexSysmetaChange } from "../search/index.ts";
import { type Clock, systemClock } from "../types/clock.ts";
import type { ObjectInfo, Slice } from "../types/index.ts";
import { importLogs } from "./logs.ts";
import { importListed, importRecord, type ObjectImport, type Outcome, recordOf } from "./objects.ts";
import type { ImportCounts, ProgressView } from "./progress.ts";
import { ImportInterrupted, type ListedObject, type SourceNode, SourceUnreachable } from "./source.ts";
import type { WriteContext } from "./write.ts";

export type ImportContext = WriteContext & IndexContext;

export interface ImportOptions {
  source: SourceNode;
  /** Objects copied at once. */
  concurrency: number;
  /** Objects per listObjects page. */
  pageSize: number;
  /** Forget the saved positions: list the source from its beginning (objects held as listed are still skipped). */
  restart?: boolean;
  /** Copy the event log too. */
  logs?: boolean;
  view: ProgressView;
  /** Waits between tries of a call the source did not answer (default 1 s, 2 s, 4 s). */
  retryDelaysMs?: readonly number[];
  /** Where "now" is read: the end of the objects' window and of the event log read (default: the system clock). */
  clock?: Clock;
  /** Stops the run (Ctrl-C): it ends with ImportStopped, what was done so far in its summary. */
  signal?: AbortSignal;
}

export interface ImportSummary {
  counts: ImportCounts;
  /** Objects that could not be copied in this run, and why (each kept for the next run to try again). */
  failures: ImportFailure[];
  /** Objects the source lists as changed after the run started: left for the next run. */
  deferred: number;
  /** Event log entries new here (with `logs`). */
  logEntries: number;
  /** Why the source would not give its event log (with `logs`). */
  logFailure?: string;
  /** Objects indexed at the end because an earlier run stopped before indexing them. */
  indexedLate: number;
}

/** A run that stopped before its end (Ctrl-C, the source gone, local trouble): what it did, and why it stopped. */
export class ImportStopped extends Error {
  constructor(
    readonly summary: ImportSummary,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

const RETRY_DELAYS_MS = [1000, 2000, 4000];

export async function runImport(ctx: ImportContext, options: ImportOptions): Promise<ImportSummary> {
  const summary: ImportSummary = {
    counts: { done: 0, total: 0, copied: 0, updated: 0, unchanged: 0, failed: 0, bytes: 0 },
    failures: [],
    deferred: 0,
    logEntries: 0,
    indexedLate: 0,
  };
  try {
    await importAll(ctx, options, summary);
    return summary;
  } catch (error) {
    throw new ImportStopped(summary, error);
  }
}

async function importAll(ctx: ImportContext, options: ImportOptions, summary: ImportSummary): Promise<void> {
  const { source, view, signal } = options;
  const { counts } = summary;
  const clock = options.clock ?? systemClock;
  const key = source.baseUrl;
  if (options.restart) await ctx.db.importProgress.reset(key);
  const startedAt = new Date(clock.now());
  const earlier = await ctx.db.importProgress.failures(key);
  const failedBefore = new Set(earlier.map((failure) => failure.pid));
  const written = { copied: [] as string[], updated: [] as string[] };
  /** Older versions copied ahead of the one that obsoletes them: counted copied already when they are listed. */
  const copiedAhead = new Set<string>();
  /** Objects handled in this run that a later listing may name again (the earlier failures; a page's last date). */
  let handled = new Set<string>();

  const fail = async ({ pid, reason }: ImportFailure, keep = true) => {
    counts.failed++;
    summary.failures.push({ pid, reason });
    if (keep) await ctx.db.importProgress.recordFailure(key, { pid, reason });
  };
  const run: ObjectImport = {
    ctx,
    source,
    sourceNodeId: source.node.identifier,
    onBytes: (size) => {
      counts.bytes += size;
      view.update(counts);
    },
    onWritten: (pid, outcome, ahead) => {
      written[outcome].push(pid);
      if (!ahead) return;
      counts.copied++;
      copiedAhead.add(pid);
    },
    onFailure: (failure) => fail(failure),
  };
  const interrupted = () => {
    if (signal?.aborted) throw new ImportInterrupted();
  };

  /** One object to its outcome: the source's refusals become failures; an unreachable source is tried again. */
  const handle = async (pid: string, work: () => Promise<Outcome>) => {
    const delays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
    for (let attempt = 0; ; attempt++) {
      interrupted();
      try {
        const outcome = await work();
        // Listed after it was copied ahead of a later version: counted as copied then.
        if (!(outcome === "unchanged" && copiedAhead.delete(pid))) counts[outcome]++;
        if (failedBefore.delete(pid)) await ctx.db.importProgress.clearFailure(key, pid);
        break;
      } catch (error) {
        if (!(error instanceof D1Error)) throw error; // local trouble (disk, database), Ctrl-C: stop here
        const delay = delays[attempt];
        const retry = error instanceof SourceUnreachable || error.exception === "ServiceFailure";
        if (retry && delay !== undefined) {
          await new Promise((resolve) => setTimeout(resolve, delay));
          continue;
        }
        if (error instanceof SourceUnreachable) throw error; // the source is gone: stop, resume later
        await fail({ pid, reason: `${error.exception}: ${error.description}` });
        break;
      }
    }
    counts.done++;
    view.update(counts);
  };

  const indexWritten = async () => {
    const copied = await ctx.db.objects.getMany(written.copied.splice(0));
    await indexNewObjects(ctx, [...copied.values()]);
    for (const pid of new Set(written.updated.splice(0))) await indexSysmetaChange(ctx, pid);
  };

  // Earlier failures first: they may succeed now (the source mended, a predecessor copied since).
  counts.total += earlier.length;
  await inLanes(earlier, options.concurrency, ({ pid }) =>
    handle(pid, async () => {
      const record = await recordOf(run, pid).catch((error: unknown) => {
        if (error instanceof D1Error && error.exception === "NotFound") return undefined;
        throw error;
      });
      // Gone from the source since: nothing left to copy.
      return record ? importRecord(run, record) : "unchanged";
    }),
  );
  handled = new Set(earlier.map((failure) => failure.pid));
  await indexWritten();

  /** The pages listed and not yet copied, in order (the next page is listed while one is copied). */
  const listed: Slice<ListedObject>[] = [];
  const window = await harvestWindow({
    nodeId: key,
    lister: {
      async listObjects(request) {
        interrupted();
        const page = await source.listObjects(request);
        listed.push(page);
        return page;
      },
    },
    progress: ctx.db.importProgress,
    lastHarvested: undefined,
    now: startedAt,
    lagMs: 0,
    pageSize: options.pageSize,
    async processPage(items: ObjectInfo[]) {
      const page = listed.shift();
      // Named again: the objects at the last date of the page before (the next page starts at that date).
      const fresh = (items as ListedObject[]).filter((item) => !handled.has(item.identifier));
      if (page) {
        const remaining = page.total - page.start - (items.length - fresh.length);
        counts.total = Math.max(counts.total, counts.done + Math.max(remaining, fresh.length));
      }
      const held = await ctx.db.objects.getMany(
        fresh.filter((item) => !item.refused).map((item) => item.identifier),
      );
      await inLanes(fresh, options.concurrency, async (item) => {
        if (item.refused) {
          // Not a PID this node could hold or the source could be asked for: named, not kept for a retry.
          await fail({ pid: JSON.stringify(item.identifier).slice(1, -1), reason: item.refused }, false);
          counts.done++;
          return;
        }
        await handle(item.identifier, () => importListed(run, item, held.get(item.identifier)));
      });
      const last = items.at(-1)?.dateSysMetadataModified.getTime();
      handled = new Set(
        items
          .filter((item) => item.dateSysMetadataModified.getTime() === last)
          .map((item) => item.identifier),
      );
      await indexWritten();
      view.update(counts, true);
    },
  });
  counts.total = counts.done;
  view.finish(counts);
  // Listed again from a little before this window's end by the next run (writes dated before they committed).
  const progress = await ctx.db.importProgress.load(key);
  if (progress && window.harvestedTo) {
    progress.harvestedTo = new Date(window.harvestedTo.getTime() - DEFAULT_LAG_MS);
    await ctx.db.importProgress.save(key, progress);
  }
  summary.deferred = await changedSince(source, startedAt);

  if (options.logs) {
    try {
      view.note("import: copying the event log");
      const onPage = (added: number) => {
        summary.logEntries += added;
        view.note(`import: ${summary.logEntries} log entries copied`);
      };
      await importLogs(ctx.db, source, onPage, clock);
    } catch (error) {
      // Refused (credentials that may not read the log): the objects are copied all the same.
      if (!(error instanceof D1Error) || error instanceof SourceUnreachable) throw error;
      summary.logFailure = `${error.exception}: ${error.description}`;
    }
  }
  summary.indexedLate = await indexMissing(ctx);
}

/** How many objects the source lists as changed at or after `since` (0 when it cannot say). */
async function changedSince(source: SourceNode, since: Date): Promise<number> {
  try {
    return (await source.listObjects({ fromDate: since, start: 0, count: 0 })).total;
  } catch (error) {
    if (error instanceof D1Error && !(error instanceof SourceUnreachable)) return 0;
    throw error;
  }
}
