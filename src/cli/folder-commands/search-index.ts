/**
 * `d1node index [--missing]`: rebuild the search index of a node's database from its stored objects. By default
 * every object is read again (science metadata re-extracted from its bytes) and its document rewritten, and the
 * documents of objects that no longer exist are removed; `--missing` indexes only the objects without a document
 * (what every start-up does). With the embedded SQLite database run it while the node is stopped (the node holds
 * the file alone); with PostgreSQL any time, the node serving meanwhile.
 * A full rebuild interrupted (Ctrl-C, a crash) resumes where it stopped when run again (or when the node next
 * starts); searches meanwhile see the old documents and those already rewritten. Progress goes to standard error
 * (written / total, documents per second, time left; then a line as each index dropped for a rebuild from empty is
 * built again), the summary to standard output. Exit code: 0 when every object was indexed,
 * 1 when some could not be (each one is named on standard error), 2 when the index could not be rebuilt at all.
 */
import type { Command } from "commander";
import { loadFormatRegistry } from "../../context/formats.ts";
import type { Database } from "../../db/types.ts";
import {
  countObjectsToIndex,
  type IndexContext,
  type RebuildEnd,
  type ReindexProgress,
  reindexObjects,
} from "../../search/index.ts";
import { openStore } from "../../store/index.ts";
import { openConfiguredDatabase, openFailure, stderrLog } from "../offline-database.ts";
import { addCommonOptions, type CommonFlags, configFromFlags } from "../options.ts";
import { progressLine } from "../progress.ts";

interface IndexFlags extends CommonFlags {
  missing?: boolean;
}

export function registerIndexCommand(program: Command): void {
  addCommonOptions(
    program
      .command("index")
      .description("rebuild the search index from the stored objects (SQLite: node stopped)"),
  )
    .option("--missing", "index only the objects that have no search document (what start-up does)")
    .action(async (flags: IndexFlags) => {
      const config = configFromFlags(flags as IndexFlags & Record<string, unknown>);
      let db: Database;
      try {
        db = await openConfiguredDatabase(config);
      } catch (error) {
        return fail(openFailure(config, error));
      }
      const store = await openStore(config);
      try {
        const summary = await rebuild({ db, store, formats: loadFormatRegistry(), log: stderrLog }, flags);
        process.stdout.write(
          `documents written ${summary.written}, failures ${summary.failed}` +
            (flags.missing ? "\n" : `, stale documents removed ${summary.removed}\n`),
        );
        if (summary.failed > 0) process.exitCode = 1;
      } catch (error) {
        fail(`the index could not be rebuilt: ${(error as Error).message}`);
      } finally {
        await store.close();
        await db.close();
      }
    });
}

async function rebuild(ctx: IndexContext, flags: IndexFlags): Promise<ReindexProgress> {
  const missingOnly = flags.missing === true;
  const { total, resumedAfter } = await countObjectsToIndex(ctx, missingOnly);
  if (resumedAfter !== undefined)
    process.stderr.write(`resuming the unfinished rebuild after ${JSON.stringify(resumedAfter)}\n`);
  const started = Date.now();
  const seconds = () => (Date.now() - started) / 1000;
  const line = progressLine();
  let done: Readonly<ReindexProgress> = { seen: 0, written: 0, failed: 0, removed: 0 };
  let ended = false;
  const summary = await reindexObjects(ctx, {
    missingOnly,
    batchSize: CLI_BATCH,
    onProgress: (progress) => {
      done = progress;
      if (!ended) line.update(() => progressText(done, total, seconds()));
    },
    // A rebuild from an empty index builds its dropped indexes last: minutes at millions of documents.
    onEnd: (end) => {
      if (end.total === 0) return;
      if (!ended) line.finish(progressText(done, total, seconds()));
      ended = true;
      process.stderr.write(`${endText(end)}\n`);
    },
  });
  if (!ended) line.finish(progressText(summary, total, seconds()));
  process.stderr.write(`done in ${seconds().toFixed(1)} s\n`);
  return summary;
}

/** Documents per transaction of a rebuild run by an operator (the node's own catch-up writes smaller pages). */
const CLI_BATCH = 500;

/** "indexed 120000 / 2500000, 0 failed, 1234 docs/s, 4.8 % done, about 32 min left" */
export function progressText(
  { seen, written, failed }: Readonly<ReindexProgress>,
  total: number,
  seconds: number,
) {
  const rate = seen / Math.max(seconds, 0.001);
  const percent = total > 0 ? `, ${((100 * Math.min(seen, total)) / total).toFixed(1)} % done` : "";
  const left = seen >= total || rate === 0 ? "" : `, about ${duration((total - seen) / rate)} left`;
  return `indexed ${written} / ${total}, ${failed} failed, ${Math.round(rate)} docs/s${percent}${left}`;
}

/** "building 5 search indexes", then "search_values_key built in 312.4 s (1 of 5)" as each is done. */
export function endText({ done, total, last }: RebuildEnd): string {
  if (!last) return `building ${total} search index${total === 1 ? "" : "es"}`;
  return `${last.index} built in ${last.seconds.toFixed(1)} s (${done} of ${total})`;
}

function duration(seconds: number): string {
  if (seconds < 90) return `${Math.ceil(seconds)} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

function fail(message: string): void {
  process.stderr.write(`d1node index: ${message}\n`);
  process.exitCode = 2;
}
