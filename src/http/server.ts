/**
 * Boot and graceful shutdown: open the backends, recover from an interrupted run, listen, and on SIGINT/SIGTERM
 * stop accepting requests, flush the event log and close everything.
 */
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { loadOrCreateSigningKey, loadPublicKeys } from "../auth/keys.ts";
import { createSessionResolver } from "../auth/session.ts";
import type { Config } from "../config/config.ts";
import { openDatabase } from "../db/index.ts";
import type { NodeContext } from "../services/context.ts";
import { loadFormatRegistry } from "../services/formats.ts";
import { createKeyedMutex } from "../services/keyed-mutex.ts";
import { recoverStore } from "../services/mn/ingest.ts";
import { createFsStore } from "../store/index.ts";
import { buildApp } from "./app.ts";

export interface RunningNode {
  app: FastifyInstance;
  ctx: NodeContext;
  /** The base URL clients use (before /v1 or /v2). */
  baseUrl: string;
  close(): Promise<void>;
}

export async function startNode(
  config: Readonly<Config>,
  options: { logLevel?: string | false } = {},
): Promise<RunningNode> {
  const db = await openDatabase(
    config.databaseUrl
      ? { url: config.databaseUrl }
      : { sqlitePath: path.join(config.dataDir, "d1node.sqlite") },
  );
  const store = await createFsStore(path.join(config.dataDir, "store"));
  // A copy, so that an ephemeral port (0) can be written into the base URL once the socket is bound.
  const live: Config = { ...config };
  const ctx: NodeContext = {
    config: live,
    db,
    store,
    formats: loadFormatRegistry(),
    contentLocks: createKeyedMutex(),
  };
  await recoverStore(ctx);
  const signing = loadOrCreateSigningKey(config.dataDir);
  const keys = [signing.publicKey, ...loadPublicKeys(config.trustedTokenKeys)];
  const app = await buildApp({
    ctx,
    sessions: createSessionResolver(keys, config),
    logLevel: options.logLevel ?? config.logLevel,
  });
  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  if (config.port === 0) {
    live.port = port;
    live.baseUrl = config.baseUrl.replace(/:0(?=\/|$)/, `:${port}`);
  }
  const baseUrl = live.baseUrl;
  let closed = false;
  return {
    app,
    ctx,
    baseUrl,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await db.events.flush();
      await db.close();
      await store.close();
    },
  };
}
