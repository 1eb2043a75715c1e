/**
 * How an operator command reaches a node's data: a node running on the embedded (SQLite) database holds it alone
 * and is asked over its control socket; otherwise (node stopped, or PostgreSQL) the command opens the database
 * and the store itself.
 */
import { existsSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import type { Config } from "../../config/config.ts";
import type { Database } from "../../db/types.ts";
import { openNodeDatabase } from "../../node/open-database.ts";
import { controlSocketPath } from "../../ops/control-socket.ts";
import { openStore } from "../../store/open-store.ts";
import type { ObjectStore } from "../../store/types.ts";

export interface LocalNode {
  db: Database;
  store: ObjectStore;
  close(): Promise<void>;
}

/** Whether a node answers on the data folder's control socket. */
export async function nodeIsRunning(config: Readonly<Config>): Promise<boolean> {
  if (config.databaseUrl) return false;
  const file = controlSocketPath(config.dataDir);
  if (!existsSync(file)) return false;
  return new Promise((resolve) => {
    const socket = net.connect(file);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Opens the node's database (migrating it) and store, for a command run beside a stopped node or on PostgreSQL. */
export async function openLocalNode(config: Readonly<Config>): Promise<LocalNode> {
  const db = await openLocalDatabase(config);
  const store = await openStore(config).catch(async (error: unknown) => {
    await db.close();
    throw error;
  });
  return {
    db,
    store,
    async close() {
      await store.close();
      await db.close();
    },
  };
}

/** Opens the node's database (migrating it); an error when the data folder holds none (and no URL is set). */
export async function openLocalDatabase(config: Readonly<Config>): Promise<Database> {
  if (!config.databaseUrl && !existsSync(path.join(config.dataDir, "d1node.sqlite"))) {
    throw Object.assign(new Error(`no node database in ${config.dataDir}`), { code: "D1NODE_NO_DATABASE" });
  }
  return openNodeDatabase(
    config.databaseUrl
      ? { url: config.databaseUrl }
      : { sqlitePath: path.join(config.dataDir, "d1node.sqlite") },
  );
}
