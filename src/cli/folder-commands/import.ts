/**
 * `d1node import --from BASE_URL`: copy every object a source Member Node serves (GMN, Metacat, another d1node;
 * v2 API, or v1) into this node, system metadata kept as the source has it, and with `--logs` its event log
 * (src/import/). With the embedded SQLite database run it while the node is stopped (the node holds the file
 * alone); with PostgreSQL any time, the node serving meanwhile. A second run continues where the first stopped.
 * Progress goes to standard error (a bar on a terminal), the summary to standard output, also when the run stops
 * (Ctrl-C, the source gone). Exit code: 0 when every object was copied, 1 when some could not be (each named on
 * standard error, kept for the next run) or changed at the source after the run started, 2 when the import could
 * not run or stopped (run it again to continue); a second Ctrl-C ends it at once (130).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { loadFormatRegistry } from "../../context/formats.ts";
import type { Database } from "../../db/types.ts";
import { D1Error } from "../../errors/exceptions.ts";
import { progressView } from "../../import/progress.ts";
import { ImportStopped, type ImportSummary, runImport } from "../../import/run.ts";
import { openSource, type SourceCredentials, type SourceNode } from "../../import/source.ts";
import { IMPORT_FOLLOWS_NOTHING } from "../../import/write.ts";
import { createContentLocks } from "../../objects/content-locks.ts";
import { createFsStore } from "../../store/index.ts";
import type { ApiVersion } from "../../types/sysmeta.ts";
import { openConfiguredDatabase, openFailure, stderrLog } from "../offline-database.ts";
import { addCommonOptions, type CommonFlags, configFromFlags } from "../options.ts";

interface ImportFlags extends CommonFlags {
  from: string;
  token?: string;
  tokenFile?: string;
  cert?: string;
  key?: string;
  ca?: string;
  api?: string;
  logs?: boolean;
  restart?: boolean;
  concurrency: string;
  pageSize: string;
}

/** Failures listed one per line at the end; the rest are counted (all are kept for the next run). */
const FAILURES_SHOWN = 50;

export function registerImportCommand(program: Command): void {
  addCommonOptions(
    program
      .command("import")
      .description("copy every object of another Member Node into this one (SQLite: node stopped)"),
  )
    .requiredOption("--from <url>", "the source node's base URL (without /v1 or /v2)")
    .option("--token <token>", "bearer token for the source (env: D1NODE_IMPORT_TOKEN)")
    .option("--token-file <file>", "file holding the bearer token")
    .option("--cert <file>", "client certificate (PEM) for the source")
    .option("--key <file>", "private key (PEM) of the client certificate")
    .option("--ca <file>", "CA certificate (PEM) the source's server certificate is signed by")
    .option("--api <version>", "v1 or v2 (default: v2 when the source has it)")
    .option("--logs", "copy the source's event log too (needs a CN's or administrator's credentials there)")
    .option(
      "--restart",
      "list the source from its beginning again (objects held as listed are still skipped)",
    )
    .option("--concurrency <n>", "objects copied at once", "4")
    .option("--page-size <n>", "objects per listObjects page", "500")
    .action(async (flags: ImportFlags) => {
      const settings = checkFlags(flags);
      if (typeof settings === "string") return fail(settings);
      let config: ReturnType<typeof configFromFlags>;
      try {
        config = configFromFlags(flags as ImportFlags & Record<string, unknown>);
      } catch (error) {
        return fail((error as Error).message);
      }
      let db: Database;
      try {
        db = await openConfiguredDatabase(config);
      } catch (error) {
        return fail(openFailure(config, error));
      }
      const store = await createFsStore(path.join(config.dataDir, "store"));
      let source: SourceNode | undefined;
      const view = progressView(process.stderr);
      // Ctrl-C stops the calls under way and ends with the summary; a second one ends the process at once.
      const stop = new AbortController();
      const interrupt = () => {
        view.note("import: stopping (Ctrl-C again to quit at once)");
        stop.abort();
        process.once("SIGINT", () => process.exit(130));
      };
      process.once("SIGINT", interrupt);
      try {
        source = await openSource(flags.from, settings.credentials, settings.api, {
          maxDocumentBytes: config.maxDocumentBytes,
          signal: stop.signal,
        });
        if (source.node.identifier !== config.nodeId) {
          view.note(
            `note: the source is ${source.node.identifier}, this node ${config.nodeId}; the copies keep the ` +
              "source's authoritativeMemberNode (to take the source's place, give this node its identifier)",
          );
        }
        const ctx = {
          db,
          store,
          formats: loadFormatRegistry(),
          contentLocks: createContentLocks(db),
          changes: IMPORT_FOLLOWS_NOTHING,
          log: stderrLog,
        };
        const summary = await runImport(ctx, { source, view, signal: stop.signal, ...settings.run });
        report(summary, flags.logs === true);
        if (summary.failures.length > 0 || summary.logFailure || summary.deferred > 0) process.exitCode = 1;
      } catch (error) {
        if (error instanceof ImportStopped) {
          view.finish(error.summary.counts);
          report(error.summary, flags.logs === true);
        }
        const cause = error instanceof ImportStopped ? error.cause : error;
        const why = stop.signal.aborted ? "interrupted" : describe(cause);
        fail(`${source ? "stopped" : "could not start"}: ${why}; run it again to continue`);
      } finally {
        process.removeListener("SIGINT", interrupt);
        await source?.close();
        await store.close();
        await db.close();
      }
    });
}

interface Settings {
  credentials: SourceCredentials;
  api: ApiVersion | undefined;
  run: { concurrency: number; pageSize: number; logs: boolean; restart: boolean };
}

/** The flags as settings, or the one line that says what is wrong with them. */
function checkFlags(flags: ImportFlags): Settings | string {
  let url: URL;
  try {
    url = new URL(flags.from);
  } catch {
    return `--from must be a base URL such as https://mn.example.org/mn, not "${flags.from}"`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "--from must be an http or https URL";
  const concurrency = Number(flags.concurrency);
  const pageSize = Number(flags.pageSize);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
    return "--concurrency must be a whole number from 1 to 64";
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 10_000)
    return "--page-size must be a whole number from 1 to 10000";
  if (flags.api !== undefined && flags.api !== "v1" && flags.api !== "v2") return "--api must be v1 or v2";
  if ((flags.cert === undefined) !== (flags.key === undefined)) return "--cert and --key go together";
  let token = flags.token ?? process.env.D1NODE_IMPORT_TOKEN;
  try {
    if (flags.tokenFile) token = readFileSync(flags.tokenFile, "utf8").trim();
    for (const file of [flags.cert, flags.key, flags.ca]) if (file) readFileSync(file);
  } catch (error) {
    return `cannot read ${(error as NodeJS.ErrnoException).path ?? "a file"}: ${(error as Error).message}`;
  }
  return {
    credentials: {
      ...(token ? { token } : {}),
      ...(flags.cert ? { certFile: flags.cert } : {}),
      ...(flags.key ? { keyFile: flags.key } : {}),
      ...(flags.ca ? { caFile: flags.ca } : {}),
    },
    api: flags.api as ApiVersion | undefined,
    run: { concurrency, pageSize, logs: flags.logs === true, restart: flags.restart === true },
  };
}

function report(summary: ImportSummary, logs: boolean): void {
  const { counts, failures } = summary;
  for (const { pid, reason } of failures.slice(0, FAILURES_SHOWN))
    process.stderr.write(`failed "${pid}": ${reason}\n`);
  if (failures.length > FAILURES_SHOWN)
    process.stderr.write(
      `... and ${failures.length - FAILURES_SHOWN} more (the next run tries them all again)\n`,
    );
  if (summary.logFailure) process.stderr.write(`the event log was not copied: ${summary.logFailure}\n`);
  if (summary.deferred > 0)
    process.stderr.write(
      `${summary.deferred} objects changed at the source after this run started (or its clock is ahead of ` +
        "this one's): run again to copy them\n",
    );
  const mib = (counts.bytes / 1024 / 1024).toFixed(1);
  process.stdout.write(
    `objects copied ${counts.copied}, updated ${counts.updated}, unchanged ${counts.unchanged}, ` +
      `failed ${failures.length}; ${mib} MiB received` +
      (logs ? `; log entries copied ${summary.logEntries}` : "") +
      "\n",
  );
}

function describe(error: unknown): string {
  if (error instanceof D1Error) return `${error.exception}: ${error.description}`;
  return error instanceof Error ? error.message : String(error);
}

function fail(message: string): void {
  process.stderr.write(`d1node import: ${message}\n`);
  process.exitCode = 2;
}
