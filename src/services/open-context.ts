/**
 * Opening a node's backends (database, object store, format registry, task queue) and recovering from an
 * interrupted run. A serving node and a worker-only process (`d1node worker`) open them the same way.
 */
import path from "node:path";
import { createCnReplicaAuthorizer } from "../auth/replica-authorization.ts";
import type { Config } from "../config/config.ts";
import { openDatabase } from "../db/index.ts";
import { taskHandlers } from "../federation/handlers.ts";
import { newOutcomes } from "../metrics/outcomes.ts";
import { indexMissing } from "../search/reindex.ts";
import { openSearchIndex } from "../search/search-index.ts";
import { createFsStore } from "../store/index.ts";
import type { NodeContext } from "./context.ts";
import { loadFormatRegistry } from "./formats.ts";
import { createKeyedMutex } from "./keyed-mutex.ts";
import type { NodeLog } from "./logger.ts";
import { recoverStore } from "./mn/ingest.ts";

export interface OpenedContext {
  ctx: NodeContext;
  /** Flushes the event log and closes the database and the store. */
  close(): Promise<void>;
}

/**
 * `config` is kept by reference: a node that binds an ephemeral port writes the real one into it. `log` is the
 * node's logger (src/services/logger.ts).
 */
export async function openNodeContext(config: Config, log: NodeLog): Promise<OpenedContext> {
  const db = await openDatabase(
    config.databaseUrl
      ? {
          url: config.databaseUrl,
          connectTimeoutSeconds: config.databaseConnectTimeout,
          statementTimeoutSeconds: config.databaseStatementTimeout,
        }
      : { sqlitePath: path.join(config.dataDir, "d1node.sqlite") },
  );
  const store = await createFsStore(path.join(config.dataDir, "store"));
  const ctx: NodeContext = {
    config,
    db,
    search: openSearchIndex(db),
    store,
    formats: loadFormatRegistry(),
    contentLocks: createKeyedMutex(),
    outcomes: newOutcomes(),
    tasks: db.tasks,
    taskHandlers,
    log,
    ...(config.cnBaseUrl ? { replicaAuthorizer: createCnReplicaAuthorizer(config, config.cnBaseUrl) } : {}),
  };
  await recoverStore(ctx);
  // Search index: objects a crash (or `d1node load`) left without a document, all of them, before serving.
  await indexMissing(ctx);
  return {
    ctx,
    async close() {
      ctx.search.close();
      await db.events.flush();
      await db.close();
      await store.close();
    },
  };
}
