/**
 * The node's composition root: opening its backends (database, object store, format registry, task queue),
 * registering what follows a write (subscribers.ts) and what runs each task (federation/handlers.ts), and
 * recovering from an interrupted run. A serving node and a worker-only process (`d1node worker`) open the same way.
 */
import path from "node:path";
import { createCnReplicaAuthorizer } from "../auth/replica-authorization.ts";
import type { Config } from "../config/config.ts";
import { loadFormatRegistry } from "../context/formats.ts";
import type { NodeLog } from "../context/logger.ts";
import type { NodeContext } from "../context/node-context.ts";
import { newOutcomes } from "../context/outcomes.ts";
import { createContentLocks } from "../objects/content-locks.ts";
import { recoverStore } from "../objects/ingest.ts";
import {
  type IndexCatchUp,
  openSearchIndex,
  SEARCH_SNAPSHOT_FILE,
  startIndexCatchUp,
} from "../search/index.ts";
import { openStore } from "../store/index.ts";
import { openNodeDatabase } from "./open-database.ts";
import { withChangeSubscribers } from "./subscribers.ts";
import { taskHandlers } from "./task-handlers.ts";

export interface OpenedContext {
  ctx: NodeContext;
  /** The search index's catch-up, running in the background. */
  searchCatchUp: IndexCatchUp;
  /** Stops the catch-up, flushes the event log and closes the database and the store. */
  close(): Promise<void>;
}

/**
 * `config` is kept by reference: a node that binds an ephemeral port writes the real one into it. `log` is the
 * node's logger (src/context/logger.ts).
 */
export async function openNodeContext(config: Config, log: NodeLog): Promise<OpenedContext> {
  const db = await openNodeDatabase(
    config.databaseUrl
      ? {
          url: config.databaseUrl,
          connectTimeoutSeconds: config.databaseConnectTimeout,
          statementTimeoutSeconds: config.databaseStatementTimeout,
          poolSize: config.databasePoolSize,
        }
      : {
          sqlitePath: path.join(config.dataDir, "d1node.sqlite"),
          durableCommits: config.sqliteDurableCommits,
        },
  );
  const store = await openStore(config);
  const ctx = withChangeSubscribers({
    config,
    db,
    search: openSearchIndex(db, {
      memoryBudget: config.searchMemoryBudget,
      snapshot: {
        file: path.join(config.dataDir, SEARCH_SNAPSHOT_FILE),
        warn: (message) => log.warn({}, message),
      },
    }),
    store,
    formats: loadFormatRegistry(),
    contentLocks: createContentLocks(db),
    outcomes: newOutcomes(),
    tasks: db.tasks,
    taskHandlers,
    log,
    ...(config.cnBaseUrl ? { replicaAuthorizer: createCnReplicaAuthorizer(config, config.cnBaseUrl) } : {}),
  });
  await recoverStore(ctx);
  // Search index: objects a crash (or `d1node load`) left without a document, in the background, so that start-up
  // costs the same whatever the node holds; unless the operator leaves them to `d1node index --missing`.
  const searchCatchUp: IndexCatchUp = config.indexCatchUp
    ? startIndexCatchUp(ctx)
    : { done: Promise.resolve(0), stop: async () => {} };
  return {
    ctx,
    searchCatchUp,
    async close() {
      await searchCatchUp.stop();
      ctx.search.close();
      await db.events.flush();
      await db.close();
      await store.close();
    },
  };
}
