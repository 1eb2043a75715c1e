/**
 * `d1node index [--missing]`: rebuild the search index of a node's database from its stored objects. By default
 * every object is read again (science metadata re-extracted from its bytes) and its document rewritten, and the
 * documents of objects that no longer exist are removed; `--missing` indexes only the objects without a document
 * (what every start-up does). With the embedded SQLite database run it while the node is stopped (the node holds
 * the file alone); with PostgreSQL any time, the node serving meanwhile.
 * Progress goes to standard error, the summary to standard output. Exit code: 0 when every object was indexed,
 * 1 when some could not be (each one is named on standard error), 2 when the index could not be rebuilt at all.
 */
import type { Command } from "commander";
import type { Database } from "../db/types.ts";
import type { IndexContext } from "../search/indexer.ts";
import { countObjectsToIndex, type ReindexProgress, reindexObjects } from "../search/reindex.ts";
import { loadFormatRegistry } from "../services/formats.ts";
import { openStore } from "../store/index.ts";
import { openConfiguredDatabase, openFailure, stderrLog } from "./offline-database.ts";
import { addCommonOptions, type CommonFlags, configFromFlags } from "./options.ts";

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
  const total = await countObjectsToIndex(ctx, missingOnly);
  const started = Date.now();
  let shown = 0;
  const show = ({ seen, written, failed }: Readonly<ReindexProgress>) => {
    const seconds = (Date.now() - started) / 1000;
    const rate = Math.round(seen / Math.max(seconds, 0.001));
    process.stderr.write(`\rindexed ${written} / ${total}, ${failed} failed (${rate} objects/s)`);
  };
  const summary = await reindexObjects(ctx, {
    missingOnly,
    onProgress: (progress) => {
      if (Date.now() - shown < 1000) return;
      shown = Date.now();
      show(progress);
    },
  });
  show(summary);
  process.stderr.write(`\ndone in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return summary;
}

function fail(message: string): void {
  process.stderr.write(`d1node index: ${message}\n`);
  process.exitCode = 2;
}
