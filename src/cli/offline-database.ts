/**
 * What the commands that work on a node's data while it is stopped share: the database the configuration names,
 * and a log that writes failures one line each on standard error.
 */
import path from "node:path";
import type { Config } from "../config/config.ts";
import type { NodeLog } from "../context/logger.ts";
import type { Database } from "../db/types.ts";
import { openNodeDatabase } from "../node/open-database.ts";

/** The configured database: PostgreSQL when a URL is set, else the data folder's SQLite file. */
export function openConfiguredDatabase(config: Readonly<Config>): Promise<Database> {
  return openNodeDatabase(
    config.databaseUrl
      ? { url: config.databaseUrl }
      : { sqlitePath: path.join(config.dataDir, "d1node.sqlite") },
  );
}

/** Why the configured database did not open, in one line for the operator. */
export function openFailure(config: Readonly<Config>, error: unknown): string {
  const hint = config.databaseUrl ? "" : " (a node running on this data folder holds it: stop it first)";
  return `could not open the database${hint}: ${(error as Error).message}`;
}

/** Failures, one line each on standard error. */
export const stderrLog: NodeLog = {
  error: (details, message) => process.stderr.write(`\n${message}: ${errorText(details)}\n`),
  warn: (details, message) => process.stderr.write(`\n${message}: ${errorText(details)}\n`),
  info: () => undefined,
};

function errorText(details: object): string {
  const err = (details as { err?: unknown }).err;
  return err instanceof Error ? err.message : JSON.stringify(details);
}
