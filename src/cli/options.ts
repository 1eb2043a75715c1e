/** Flags shared by the commands, and how they become a Config (flags win over environment, environment over file). */
import type { Command } from "commander";
import { type ConfigInput, configFromEnv, configFromFile, resolveConfig } from "../config/config.ts";
import { asOperatorError, OperatorError } from "./operator-error.ts";

export interface CommonFlags {
  config?: string;
  dataDir?: string;
  databaseUrl?: string;
  store?: string;
  storeEndpoint?: string;
  adminSubject?: string[];
  cnSubject?: string[];
}

export function addCommonOptions(command: Command): Command {
  return command
    .option("-c, --config <file>", "JSON configuration file (env: D1NODE_CONFIG)")
    .option(
      "-d, --data-dir <dir>",
      "data folder: embedded database, object bytes, signing key (env: D1NODE_DATA_DIR)",
    )
    .option(
      "--database-url <url>",
      "postgres://... to use PostgreSQL instead of the embedded SQLite (env: D1NODE_DATABASE_URL)",
    )
    .option(
      "--store <url>",
      "s3://bucket/prefix to keep object bytes in S3 instead of the data folder (env: D1NODE_STORE)",
    )
    .option(
      "--store-endpoint <url>",
      "endpoint of an S3-compatible server, e.g. http://127.0.0.1:7480 (env: D1NODE_STORE_ENDPOINT)",
    )
    .option(
      "--admin-subject <subject...>",
      "node administrator subjects (env: D1NODE_ADMIN_SUBJECTS, ;-separated)",
    )
    .option(
      "--cn-subject <subject...>",
      "Coordinating Node subjects trusted for CN-only calls (env: D1NODE_CN_SUBJECTS)",
    );
}

export interface PeerFlags {
  nodeCert?: string;
  nodeKey?: string;
  peerCa?: string[];
  token?: string;
}

/** How a command authenticates to a running node: the node certificate, or a bearer token. */
export function addPeerOptions(command: Command): Command {
  return command
    .option("--node-cert <file>", "the node's client certificate (PEM) (env: D1NODE_NODE_CERT)")
    .option("--node-key <file>", "its private key (PEM) (env: D1NODE_NODE_KEY)")
    .option(
      "--peer-ca <file...>",
      "CA bundle(s) the node's server certificate must chain to (env: D1NODE_PEER_CA)",
    )
    .option("--token <token>", "a bearer token to call with instead");
}

/** The common flags whose empty value (`--database-url "$UNSET"`) would otherwise quietly mean "not given". */
const NOT_EMPTY: Record<string, string> = {
  config: "--config",
  dataDir: "--data-dir",
  databaseUrl: "--database-url",
  store: "--store",
  storeEndpoint: "--store-endpoint",
};

export function configFromFlags(flags: CommonFlags & Record<string, unknown>, extra: ConfigInput = {}) {
  for (const [key, flag] of Object.entries(NOT_EMPTY)) {
    if (typeof flags[key] === "string" && (flags[key] as string).trim() === "") {
      throw new OperatorError(`${flag} is empty: give a value or leave the flag out`);
    }
  }
  const file = flags.config ?? process.env.D1NODE_CONFIG;
  const fromFlags: ConfigInput = {
    ...(flags.dataDir ? { dataDir: flags.dataDir } : {}),
    ...(flags.databaseUrl ? { databaseUrl: flags.databaseUrl } : {}),
    ...(flags.store ? { store: flags.store } : {}),
    ...(flags.storeEndpoint ? { storeEndpoint: flags.storeEndpoint } : {}),
    ...(flags.adminSubject ? { adminSubjects: flags.adminSubject } : {}),
    ...(flags.cnSubject ? { cnSubjects: flags.cnSubject } : {}),
    ...extra,
  };
  // A bad setting is the operator's mistake: one line naming it, no stack trace.
  return asOperatorError(() =>
    resolveConfig(file ? configFromFile(file) : {}, configFromEnv(process.env), fromFlags),
  );
}
