/**
 * Commands that work for a node on its data folder (sign with its key, open its database) never start a new
 * folder: run from the wrong directory, they say so in one line (exit 2) instead of creating an empty folder and
 * a key no node knows.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { loadSigningKey, type SigningKey } from "../auth/keys.ts";
import type { Config } from "../config/config.ts";
import { OperatorError } from "./operator-error.ts";

const missing = (config: Readonly<Config>, what: string) =>
  new OperatorError(
    `${path.resolve(config.dataDir)} holds no ${what}: not a node's data folder (run this where the node's data folder is, or give --data-dir)`,
  );

/** The data folder's token-signing key; an OperatorError when the folder has none. */
export function existingSigningKey(config: Readonly<Config>): SigningKey {
  const key = loadSigningKey(config.dataDir);
  if (!key) throw missing(config, "token-signing key");
  return key;
}

/** An OperatorError when the node's embedded database is not in its data folder (PostgreSQL: nothing to check). */
export function requireEmbeddedDatabase(config: Readonly<Config>): void {
  if (!config.databaseUrl && !existsSync(path.join(config.dataDir, "d1node.sqlite")))
    throw missing(config, "node database (d1node.sqlite)");
}
