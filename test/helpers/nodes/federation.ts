/** A local federation (CN + MNs) for tests, on SQLite or PostgreSQL (a fresh database per node). */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  type Federation,
  type FederationOptions,
  startFederation,
} from "../../../src/node/local-federation.ts";
import { createTestPostgresDatabase, type TestPostgres } from "../db/postgres.ts";
import type { Dialect } from "./node.ts";

export interface TestFederation extends Federation {
  dir: string;
}

export async function startTestFederation(
  dialect: Dialect = "sqlite",
  options: Omit<FederationOptions, "dir" | "databaseUrl"> = {},
): Promise<TestFederation> {
  const dir = await mkdtemp(path.join(tmpdir(), "d1node-federation-"));
  const databases: TestPostgres[] = [];
  const databaseUrl = async () => {
    if (dialect !== "postgres") return undefined;
    const db = await createTestPostgresDatabase();
    databases.push(db);
    return db.url;
  };
  const cleanup = async () => {
    for (const db of databases) await db.drop();
    await rm(dir, { recursive: true, force: true });
  };
  let federation: Federation;
  try {
    federation = await startFederation({ logLevel: false, ...options, dir, databaseUrl });
  } catch (error) {
    await cleanup();
    throw error;
  }
  return {
    ...federation,
    dir,
    async close() {
      await federation.close();
      await cleanup();
    },
  };
}
