/**
 * Opening a node's backends (database, object store, format registry, task queue) and recovering from an
 * interrupted run. A serving node and a worker-only process (`d1node worker`) open them the same way.
 */
import path from "node:path";
import { createCnReplicaAuthorizer } from "../auth/replica-authorization.ts";
import type { Config } from "../config/config.ts";
import { openDatabase } from "../db/index.ts";
import { taskHandlers } from "../federation/handlers.ts";
import { indexMissing } from "../search/indexer.ts";
import { createFsStore } from "../store/index.ts";
import { taskStore } from "../tasks/queue.ts";
import type { NodeContext } from "./context.ts";
import { loadFormatRegistry } from "./formats.ts";
import { createKeyedMutex } from "./keyed-mutex.ts";
import { recoverStore } from "./mn/ingest.ts";

export interface OpenedContext {
  ctx: NodeContext;
  /** Flushes the event log and closes the database and the store. */
  close(): Promise<void>;
}

/** `config` is kept by reference: a node that binds an ephemeral port writes the real one into it. */
export async function openNodeContext(config: Config): Promise<OpenedContext> {
  const db = await openDatabase(
    config.databaseUrl
      ? { url: config.databaseUrl }
      : { sqlitePath: path.join(config.dataDir, "d1node.sqlite") },
  );
  const store = await createFsStore(path.join(config.dataDir, "store"));
  const ctx: NodeContext = {
    config,
    db,
    store,
    formats: loadFormatRegistry(),
    contentLocks: createKeyedMutex(),
    tasks: taskStore(db.kysely, db.dialect),
    taskHandlers,
    ...(config.cnBaseUrl ? { replicaAuthorizer: createCnReplicaAuthorizer(config, config.cnBaseUrl) } : {}),
  };
  await recoverStore(ctx);
  await indexMissing(ctx); // search index: objects a crash left unindexed
  return {
    ctx,
    async close() {
      await db.events.flush();
      await db.close();
      await store.close();
    },
  };
}
