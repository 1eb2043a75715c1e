/**
 * One `d1node import` run: objects the source lists, window by window as the CN harvests (the same paging:
 * position saved after every page, listObjects parameters the source refuses left out), each page copied a few
 * objects at once and then indexed for search; then, with `logs`, the event log. What failed before is tried
 * first. A run stopped at any point (killed, the source gone) continues where it stopped the next time, and
 * never copies an object twice: an object held as the source lists it is skipped.
 */
import type { ImportFailure } from "../db/types.ts";
import { D1Error } from "../errors/exceptions.ts";
import { inLanes } from "../federation/harvest/page.ts";
import { harvestWindow } from "../federation/harvest/window.ts";
import { indexNewObjects, indexSysmetaChange } from "../search/hooks.ts";
import type { IndexContext } from "../search/indexer.ts";
import { indexMissing } from "../search/reindex.ts";
import { type Clock, systemClock } from "../types/clock.ts";
import type { ObjectInfo } from "../types/index.ts";
import { importLogs } from "./logs.ts";
import { importListed, importRecord, type ObjectImport, type Outcome } from "./objects.ts";
import type { ImportCounts, ProgressView } from "./progress.ts";
import { type SourceNode, SourceUnreachable } from "./source.ts";
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
}

export interface ImportSummary {
  counts: ImportCounts;
  /** Objects that could not be copied in this run, and why (each kept for the next run to try again). */
  failures: ImportFailure[];
  /** Event log entries new here (with `logs`). */
  logEntries: number;
  /** Why the source would not give its event log (with `logs`). */
  logFailure?: string;
  /** Objects indexed at the end because an earlier run stopped before indexing them. */
  indexedLate: number;
}

const RETRY_DELAYS_MS = [1000, 2000, 4000];

export async function runImport(ctx: ImportContext, options: ImportOptions): Promise<ImportSummary> {
  const { source, view } = options;
  const clock = options.clock ?? systemClock;
  const key = source.baseUrl;
  if (options.restart) await ctx.db.importProgress.reset(key);
  const counts: ImportCounts = {
    done: 0,
    total: 0,
    copied: 0,
    updated: 0,
    unchanged: 0,
    failed: 0,
    bytes: 0,
  };
  const failures = new Map<string, string>();
  const earlier = await ctx.db.importProgress.failures(key);
  const failedBefore = new Set(earlier.map((failure) => failure.pid));
  const written = { copied: [] as string[], updated: [] as string[] };

  const fail = async ({ pid, reason }: ImportFailure) => {
    failures.set(pid, reason);
    await ctx.db.importProgress.recordFailure(key, { pid, reason });
  };
  const run: ObjectImport = {
    ctx,
    source,
    sourceNodeId: source.node.identifier,
    onBytes: (size) => {
      counts.bytes += size;
    },
    onWritten: (pid, outcome) => written[outcome].push(pid),
    onFailure: fail,
  };

  /** One object to its outcome: the source's refusals become failures; an unreachable source is tried again. */
  const handle = async (pid: string, work: () => Promise<Outcome>) => {
    const delays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        const outcome = await work();
        counts[outcome]++;
        if (failedBefore.delete(pid)) await ctx.db.importProgress.clearFailure(key, pid);
        break;
      } catch (error) {
        if (!(error instanceof D1Error)) throw error; // local trouble (disk, database): stop here
        const delay = delays[attempt];
        const retry = error instanceof SourceUnreachable || error.exception === "ServiceFailure";
        if (retry && delay !== undefined) {
          await new Promise((resolve) => setTimeout(resolve, delay));
          continue;
        }
        if (error instanceof SourceUnreachable) throw error; // the source is gone: stop, resume later
        counts.failed++;
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
      const record = await source.getSystemMetadata(pid).catch((error: unknown) => {
        if (error instanceof D1Error && error.exception === "NotFound") return undefined;
        throw error;
      });
      // Gone from the source since: nothing left to copy.
      return record ? importRecord(run, record) : "unchanged";
    }),
  );
  await indexWritten();

  await harvestWindow({
    nodeId: key,
    lister: {
      async listObjects(window) {
        const page = await source.listObjects(window);
        counts.total = Math.max(
          counts.total,
          counts.done + Math.max(page.total - page.start, page.items.length),
        );
        return page;
      },
    },
    progress: ctx.db.importProgress,
    lastHarvested: undefined,
    now: new Date(clock.now()),
    pageSize: options.pageSize,
    async processPage(items: ObjectInfo[]) {
      const held = await ctx.db.objects.getMany(items.map((item) => item.identifier));
      await inLanes(items, options.concurrency, (item) =>
        handle(item.identifier, () => importListed(run, item, held.get(item.identifier))),
      );
      await indexWritten();
      view.update(counts, true);
    },
  });
  counts.total = Math.max(counts.total, counts.done);
  view.finish(counts);

  let logEntries = 0;
  let logFailure: string | undefined;
  if (options.logs) {
    try {
      logEntries = await importLogs(ctx.db, source, () => undefined, clock);
    } catch (error) {
      // Refused (credentials that may not read the log): the objects are copied all the same.
      if (!(error instanceof D1Error) || error instanceof SourceUnreachable) throw error;
      logFailure = `${error.exception}: ${error.description}`;
    }
  }
  const indexedLate = await indexMissing(ctx);
  return {
    counts,
    failures: [...failures].map(([pid, reason]) => ({ pid, reason })),
    logEntries,
    ...(logFailure ? { logFailure } : {}),
    indexedLate,
  };
}
