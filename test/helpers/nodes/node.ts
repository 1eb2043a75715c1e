/** Start a real listening node on a temp data folder (SQLite or PostgreSQL) for tests. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before } from "node:test";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { mintToken } from "../../../src/auth/tokens.ts";
import { type ConfigInput, resolveConfig } from "../../../src/config/config.ts";
import { type RunningNode, type StartOptions, startNode } from "../../../src/node/start.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../db/postgres.ts";
import { createTestBucket, s3NodeSettings } from "../peers/s3.ts";

export const ADMIN = "CN=Test Admin,O=d1node,C=US,DC=cilogon,DC=org";
export const CN_SUBJECT = "CN=urn:node:TESTCN,DC=dataone,DC=org";

export interface TestNode {
  node: RunningNode;
  baseUrl: string;
  dataDir: string;
  token(subject: string, ttlSeconds?: number): Promise<string>;
  close(): Promise<void>;
}

export type Dialect = "sqlite" | "postgres";

/** `start` overrides how the node starts (default: no logging). */
export async function startTestNode(
  dialect: Dialect = "sqlite",
  settings: ConfigInput = {},
  start: StartOptions = {},
): Promise<TestNode> {
  // A data folder given in the settings (e.g. one whose signing key another node already trusts) is used.
  const dataDir =
    typeof settings.dataDir === "string"
      ? settings.dataDir
      : await mkdtemp(path.join(tmpdir(), "d1node-test-"));
  let pg: TestPostgres | undefined;
  if (dialect === "postgres") pg = await createTestPostgresDatabase();
  // D1NODE_TEST_STORE=s3 runs the node on an S3 bucket of its own (the RADOS Gateway), unless a store is given.
  const bucket =
    process.env.D1NODE_TEST_STORE === "s3" && !settings.store ? await createTestBucket() : undefined;
  const config = resolveConfig({
    port: 0,
    dataDir,
    nodeId: "urn:node:TESTMN",
    adminSubjects: [ADMIN],
    cnSubjects: [CN_SUBJECT],
    logLevel: "warn",
    ...(pg ? { databaseUrl: pg.url } : {}),
    ...(bucket ? s3NodeSettings(bucket) : {}),
    ...settings,
  });
  const node = await startNode(config, { logLevel: false, ...start });
  const { privateKey } = loadOrCreateSigningKey(dataDir);
  return {
    node,
    baseUrl: node.baseUrl,
    dataDir,
    token: (subject, ttlSeconds) => mintToken(privateKey, { subject, ...(ttlSeconds ? { ttlSeconds } : {}) }),
    async close() {
      await node.close();
      await pg?.drop();
      await bucket?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Dialects the database-backed tests run on: both, unless D1NODE_TEST_PG=skip says otherwise. */
export function testDialects(): Dialect[] {
  return process.env.D1NODE_TEST_PG === "skip" ? ["sqlite"] : ["sqlite", "postgres"];
}

/** Settings for withTestNode: fixed, or made when the node starts (after the suite's earlier hooks ran). */
export type TestNodeSettings = ConfigInput | (() => ConfigInput | Promise<ConfigInput>);

/**
 * Registers hooks in the current suite: a node on `dialect` started before its tests and closed after them.
 * Returns the node as a TestNode whose fields read the started one; register before any hook that uses it.
 */
export function withTestNode(
  dialect: Dialect,
  settings: TestNodeSettings = {},
  start: StartOptions = {},
): TestNode {
  let started: TestNode | undefined;
  const running = (): TestNode => {
    if (!started) throw new Error("the test node is not started (withTestNode's hook has not run)");
    return started;
  };
  before(async () => {
    started = await startTestNode(
      dialect,
      typeof settings === "function" ? await settings() : settings,
      start,
    );
  });
  after(async () => {
    await started?.close();
    started = undefined;
  });
  return {
    get node() {
      return running().node;
    },
    get baseUrl() {
      return running().baseUrl;
    },
    get dataDir() {
      return running().dataDir;
    },
    token: (subject, ttlSeconds) => running().token(subject, ttlSeconds),
    close: async () => {
      await started?.close();
      started = undefined;
    },
  };
}
