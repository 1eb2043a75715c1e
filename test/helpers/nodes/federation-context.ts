/** A NodeContext over a test database, for the federation's background work run without a server. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after } from "node:test";
import { type ConfigInput, resolveConfig } from "../../../src/config/config.ts";
import { loadFormatRegistry } from "../../../src/context/formats.ts";
import { silentLog } from "../../../src/context/logger.ts";
import type { NodeContext } from "../../../src/context/node-context.ts";
import { newOutcomes } from "../../../src/context/outcomes.ts";
import type { Database } from "../../../src/db/types.ts";
import { withChangeSubscribers } from "../../../src/node/subscribers.ts";
import { taskHandlers } from "../../../src/node/task-handlers.ts";
import { createKeyedMutex } from "../../../src/objects/keyed-mutex.ts";
import { openSearchIndex } from "../../../src/search/search-index.ts";
import { createFsStore } from "../../../src/store/index.ts";

export async function contextOver(db: Database, settings: ConfigInput = {}): Promise<NodeContext> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "d1node-ctx-"));
  after(() => rm(dataDir, { recursive: true, force: true }));
  return withChangeSubscribers({
    config: resolveConfig({ dataDir, nodeId: "urn:node:TESTCN", logLevel: "warn", ...settings }),
    db,
    search: openSearchIndex(db),
    store: await createFsStore(path.join(dataDir, "store")),
    formats: loadFormatRegistry(),
    contentLocks: createKeyedMutex(),
    outcomes: newOutcomes(),
    tasks: db.tasks,
    taskHandlers,
    log: silentLog,
  });
}
