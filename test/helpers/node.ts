/** Start a real listening node on a temp data folder (SQLite or PostgreSQL) for tests. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadOrCreateSigningKey } from "../../src/auth/keys.ts";
import { mintToken } from "../../src/auth/tokens.ts";
import { type ConfigInput, resolveConfig } from "../../src/config/config.ts";
import { type RunningNode, type StartOptions, startNode } from "../../src/node/start.ts";
import { createTestPostgresDatabase, type TestPostgres } from "./postgres.ts";
import { createTestBucket, s3NodeSettings } from "./s3.ts";

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
