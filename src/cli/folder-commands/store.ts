/**
 * `d1node store migrate --to s3://bucket/prefix` (or `--to <data folder>/store`, back): copies every stored
 * object's bytes to another store, each checked against its SHA-256 as it streams (src/ops/store-migration/).
 * It may run while the node serves: that pass copies what is there and says to run it again with the node
 * stopped. With the node stopped (this process then holds its database), the pass is final: it copies what was
 * written meanwhile, checks that every object's bytes are in the target, and switches the node's `store`
 * setting (its config file rewritten, or the setting to use printed). The old store is left as it was.
 * Progress on standard error, failures and the summary on standard output. Exit code: 0 done (or, while the node
 * serves, copied so far), 1 some bytes could not be copied (nothing switched), 2 the command could not run.
 */
import { rmSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import type { Config } from "../../config/config.ts";
import { nodeProcessesOn } from "../../db/engine/node-processes.ts";
import type { CopyProgress } from "../../ops/store-migration/copy-keys.ts";
import { migrateBytes } from "../../ops/store-migration/migrate.ts";
import { openProgressLog } from "../../ops/store-migration/progress-log.ts";
import { lockMigration, RUN_LOCK } from "../../ops/store-migration/run-lock.ts";
import { describeStore, resolveTarget } from "../../ops/store-migration/target.ts";
import { openStore } from "../../store/open-store.ts";
import { OperatorError } from "../operator-error.ts";
import { addCommonOptions, type CommonFlags, configFromFlags } from "../options.ts";
import { mib, progressLine } from "../progress.ts";
import { nodeIsRunning, openLocalDatabase } from "./node-access.ts";
import { switchStoreSetting } from "./store-setting.ts";

interface MigrateFlags extends CommonFlags {
  to: string;
  toEndpoint?: string;
  concurrency: string;
}

export function registerStoreCommands(program: Command): void {
  const store = program.command("store").description("the node's stored object bytes");
  addCommonOptions(
    store
      .command("migrate")
      .description("copy every object's bytes to another store (verified), then switch the node to it"),
  )
    .requiredOption("--to <store>", "s3://bucket/prefix, or the data folder's store folder to move back")
    .option("--to-endpoint <url>", "the target's S3 endpoint (default: the node's storeEndpoint)")
    .option("--concurrency <n>", "objects copied at once", "4")
    .action(async (flags: MigrateFlags) => {
      const config = configFromFlags(flags as MigrateFlags & Record<string, unknown>);
      const concurrency = Number(flags.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) {
        throw new OperatorError("--concurrency must be a whole number from 1 to 64");
      }
      const target = resolveTarget(config, flags.to, flags.toEndpoint);
      const from = describeStore(config);
      const unlock = await lockMigration(config.dataDir);
      process.once("exit", () => rmSync(path.join(config.dataDir, RUN_LOCK), { force: true }));
      const db = (await nodeServes(config)) ? undefined : await openLocalDatabase(config);
      const source = await openStore(config);
      const targetStore = await target.open().catch(async (error: unknown) => {
        await source.close();
        throw error;
      });
      await targetStore.sweepTemp();
      const log = await openProgressLog(config.dataDir, { from, to: target.description });
      const line = progressLine();
      const started = Date.now();
      if (log.resumed) process.stderr.write(`continuing: ${log.done.size} objects' bytes copied earlier\n`);
      try {
        const result = await migrateBytes({
          source,
          target: targetStore,
          log,
          db,
          concurrency,
          onProgress: (p) => line.update(() => progressText(p, started)),
          onFailure: ({ key, why }) => process.stdout.write(`FAILED ${key}: ${why}\n`),
          onNotCopied: (pid, key, why) => process.stdout.write(`NOT COPIED ${pid} (bytes ${key}): ${why}\n`),
        });
        line.finish(progressText(result.pass, started));
        const copied =
          `${result.pass.copied} copied (${mib(result.pass.bytes)} MiB), ${result.pass.present} already there, ` +
          `${result.pass.skipped} copied earlier, ${result.pass.failed} failed`;
        if (result.state === "serving") {
          await log.close();
          process.stdout.write(
            `${copied}; the node is running: stop it (and its workers) and run this again to copy what it ` +
              `writes meanwhile and switch it to ${target.description}\n`,
          );
        } else if (result.state === "incomplete") {
          await log.close();
          process.stdout.write(
            `${copied}; ${result.notCopied} objects' bytes are not in ${target.description}: not switched, the ` +
              `node still uses ${from} (d1node audit --repair can fetch bad or missing bytes from a replica)\n`,
          );
        } else {
          const switched = await switchStoreSetting(
            {
              configFile: flags.config ?? process.env.D1NODE_CONFIG,
              fromFlags: Boolean(flags.store || flags.storeEndpoint),
              env: process.env,
            },
            target.setting,
          );
          await log.remove();
          process.stdout.write(
            `${copied}${result.removed ? `, ${result.removed} no longer needed removed` : ""}; every ` +
              `object's bytes are in ${target.description}\n${switched}\n` +
              `${from} is left as it was: remove it once the node serves from ${target.description}\n`,
          );
        }
        if (result.state !== "complete" && result.pass.failed + result.notCopied > 0) process.exitCode = 1;
      } finally {
        await log.close();
        await Promise.allSettled([source.close(), targetStore.close(), db?.close()]);
        await unlock();
      }
    });
}

/** Whether a node (or a worker) uses the node's database now. */
async function nodeServes(config: Readonly<Config>): Promise<boolean> {
  if (!config.databaseUrl) return nodeIsRunning(config);
  return (await nodeProcessesOn(config.databaseUrl)) > 0;
}

function progressText(p: Readonly<CopyProgress>, started: number): string {
  const seconds = Math.max((Date.now() - started) / 1000, 0.001);
  return (
    `checked ${p.listed} stored objects: ${p.copied} copied (${mib(p.bytes)} MiB, ${mib(p.bytes / seconds)} MiB/s), ` +
    `${p.present} already there, ${p.skipped} copied earlier, ${p.failed} failed`
  );
}
