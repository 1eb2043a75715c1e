/**
 * A d1node process for one benchmark section: a temp data folder, SQLite by default or a fresh PostgreSQL
 * database, an administrator token. Extra Node flags for the server (e.g. `--cpu-prof`) come from
 * BENCH_NODE_FLAGS.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import { loadOrCreateSigningKey } from "../../src/auth/keys.ts";
import { mintToken } from "../../src/auth/tokens.ts";
import { type Served, serve } from "./processes.ts";

const run = promisify(execFile);

export const BIN = fileURLToPath(new URL("../../bin/d1node.js", import.meta.url));
export const ADMIN = "CN=bench-admin,DC=d1node,DC=org";

export interface Backend {
  /** "sqlite" or "postgres", for labels. */
  dialect: "sqlite" | "postgres";
  /** Database URL for --database-url (undefined: SQLite in the data folder). */
  url?: string;
  dispose(): Promise<void>;
}

export interface BenchNode extends Served {
  /** Base URL up to the API version, e.g. http://127.0.0.1:1234/mn */
  baseUrl: string;
  /** The path part of baseUrl, e.g. /mn */
  basePath: string;
  token: string;
  pid: number;
}

export async function tempDir(tag: string): Promise<{ dir: string; dispose(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `d1node-bench-${tag}-`));
  return { dir, dispose: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * SQLite (no URL), or a new database on the PostgreSQL server `adminUrl` (named `prefix` and a random tail),
 * dropped by dispose().
 */
export async function backend(adminUrl: string | undefined, prefix = "d1node_bench"): Promise<Backend> {
  if (!adminUrl) return { dialect: "sqlite", dispose: async () => undefined };
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  await withClient(adminUrl, (c) => c.query(`create database ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    dialect: "postgres",
    url: url.toString(),
    dispose: () => withClient(adminUrl, (c) => c.query(`drop database if exists ${name} with (force)`)),
  };
}

/**
 * A database named `name` on the PostgreSQL server `adminUrl`, made when missing and kept after the run (dispose
 * does nothing): for sections that load millions of rows once and measure them many times. `created` says
 * whether it was new.
 */
export async function keptBackend(adminUrl: string, name: string): Promise<Backend & { created: boolean }> {
  let created = false;
  await withClient(adminUrl, async (c) => {
    const found = await c.query("select 1 from pg_database where datname = $1", [name]);
    if (found.rowCount === 0) {
      await c.query(`create database ${name}`);
      created = true;
    }
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { dialect: "postgres", url: url.toString(), created, dispose: async () => undefined };
}

async function withClient(url: string, work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

export function dbFlags(db: Backend): string[] {
  return db.url ? ["--database-url", db.url] : [];
}

/**
 * `d1node serve` on `dataDir` with an ephemeral port; resolves once it prints its base URL. `env`: further settings
 * (D1NODE_*) for this node alone, added to this process's environment; `logLevel` its log lines (default warn).
 */
export async function startNode(
  dataDir: string,
  db: Backend,
  env: NodeJS.ProcessEnv = {},
  logLevel = "warn",
): Promise<BenchNode> {
  const flags = (process.env.BENCH_NODE_FLAGS ?? "").split(/\s+/).filter(Boolean);
  const args = [
    "serve",
    "--data-dir",
    dataDir,
    "--port",
    "0",
    "--log-level",
    logLevel,
    "--admin-subject",
    ADMIN,
    ...dbFlags(db),
  ];
  // As users start it (the command itself, with the node flags of its first line), unless flags are asked for.
  const served = flags.length > 0 ? await serve([...flags, BIN, ...args], env) : await serve(args, env, BIN);
  // Minted here, not by `d1node token`: a second process start would count in the start-up figures.
  const token = await mintToken(loadOrCreateSigningKey(dataDir).privateKey, { subject: ADMIN });
  const baseUrl = served.url.replace(/\/$/, "");
  return {
    ...served,
    baseUrl,
    basePath: new URL(baseUrl).pathname,
    token,
    pid: served.child.pid ?? 0,
  };
}

/** Run `d1node <args>` to completion, passing its output through; returns the seconds it took. */
export async function runCli(args: string[]): Promise<number> {
  const started = process.hrtime.bigint();
  const child = run(process.execPath, [BIN, ...args], { maxBuffer: 16 << 20 });
  child.child.stderr?.pipe(process.stderr);
  await child;
  return Number(process.hrtime.bigint() - started) / 1e9;
}
