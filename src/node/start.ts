/**
 * Boot and graceful shutdown: open the backends, recover from an interrupted run, listen (HTTPS when the node
 * has a server certificate), and on SIGINT/SIGTERM stop accepting requests, flush the event log and close
 * everything.
 */
import { readFileSync } from "node:fs";
import https from "node:https";
import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyInstance } from "fastify";
import type { DestinationStream } from "pino";
import { createCnSubjectInfoSource } from "../auth/cn-identity.ts";
import { createCnSubjectSource } from "../auth/cn-subjects.ts";
import { createCnTokenKeySource } from "../auth/cn-token-keys.ts";
import { loadOrCreateSigningKey, loadPublicKeys } from "../auth/keys.ts";
import { createSignIn, type SignIn } from "../auth/oidc/setup.ts";
import type { Refresher } from "../auth/refreshing.ts";
import { createSessionResolver, type SessionResolver } from "../auth/session.ts";
import { loadCaBundle } from "../certificates/parse.ts";
import type { Config } from "../config/config.ts";
import { createNodeLogger, silentLog } from "../context/logger.ts";
import type { NodeContext } from "../context/node-context.ts";
import { recordTaskFailure } from "../context/outcomes.ts";
import { buildApp } from "../http/app.ts";
import type { MetricsOptions } from "../http/plugins/metrics.ts";
import { startMetricsListener } from "../metrics/metrics-listener.ts";
import { startControlSocket } from "../ops/control-socket.ts";
import { warmSearch } from "../search/index.ts";
import { localSubjectInfoSource } from "../services/cn/subject-source.ts";
import { logTaskFailure } from "../tasks/failure-log.ts";
import { TASK_LIMITS } from "../tasks/kinds.ts";
import { startWorker, type Worker } from "../tasks/worker.ts";
import { openNodeContext } from "./open-context.ts";
import { startupJobs } from "./startup-work.ts";

export interface RunningNode {
  app: FastifyInstance;
  ctx: NodeContext;
  /** Resolves once the search index's start-up catch-up (objects without a document) has ended. */
  searchCaughtUp: Promise<number>;
  /** The base URL clients use (before /v1 or /v2). */
  baseUrl: string;
  /** This process's own scrape target (with a metricsPort). */
  metricsUrl: string | undefined;
  close(): Promise<void>;
}

export interface StartOptions {
  logLevel?: string | false;
  /** Run queued background tasks in this process (default true; tests may drive them with runDueTasks). */
  worker?: boolean;
  /** Where the node's log lines go (default: standard output); tests read them from here. */
  logDestination?: DestinationStream;
  /** What samples the status page's plots (default: every 10 s); tests pass a sampler they drive by hand. */
  metricsSampling?: MetricsOptions["sampling"];
}

export async function startNode(config: Readonly<Config>, options: StartOptions = {}): Promise<RunningNode> {
  // A copy, so that an ephemeral port (0) can be written into the base URL once the socket is bound.
  const live: Config = { ...config };
  // The node's own logger, before anything runs: the start-up index catch-up logs through it too.
  const level = options.logLevel ?? config.logLevel;
  // A destination given by a test is read as JSON lines; the process's own output is in the configured format.
  const logger =
    level === false
      ? undefined
      : createNodeLogger(level, options.logDestination, options.logDestination ? "json" : config.logFormat);
  const opened = await openNodeContext(live, logger ?? silentLog);
  const { ctx } = opened;
  // CN lookup failures are logged through the node's logger: a lookup may fail before the app exists.
  // A CN expands subjects (groups, equivalent identities) from its own tables; an MN asks its CN, if any.
  const warn = (message: string) => logger?.warn(message);
  // Without `cnSubjects`, an MN trusts the CN subjects its CN's listNodes names (kept current in `live`).
  const cnSubjects =
    config.role === "mn" && config.cnBaseUrl && config.cnSubjects.length === 0
      ? createCnSubjectSource({
          cnBaseUrl: config.cnBaseUrl,
          node: config,
          warn,
          onChange: (subjects) => {
            live.cnSubjects = [...subjects];
          },
        })
      : undefined;
  const signIn = createSignIn(live, ctx.db.browserSessions);
  const sessions = sessionResolver(live, warn, config.role === "cn" ? ctx : undefined, cnSubjects, signIn);
  const app = await buildApp({
    ctx,
    sessions,
    signIn,
    ...(logger ? { logger } : {}),
    ...(options.metricsSampling ? { metrics: { sampling: options.metricsSampling } } : {}),
  });
  const tls = config.tlsCert && config.tlsKey ? await listenTls(app, config) : undefined;
  if (!tls) await app.listen({ host: config.host, port: config.port });
  const address = (tls ?? app.server).address();
  const port = typeof address === "object" && address ? address.port : config.port;
  if (config.port === 0) {
    live.port = port;
    live.baseUrl = config.baseUrl.replace(/:0(?=\/|$)/, `:${port}`);
  }
  const baseUrl = live.baseUrl;
  const worker: Worker | undefined =
    options.worker === false
      ? undefined
      : startWorker(ctx, ctx.tasks, ctx.taskHandlers, {
          limits: TASK_LIMITS,
          onError: (task, error) => {
            recordTaskFailure(ctx, task.kind, error);
            logTaskFailure(app.log, task, error);
          },
        });
  for (const job of startupJobs) await job(ctx);
  // SQLite: operator commands (backup, audit) reach the node, which holds the database alone, on this socket.
  const control = config.databaseUrl
    ? undefined
    : await startControlSocket(ctx, (message) => app.log.warn(message));
  const metricsListener =
    config.metricsPort === undefined
      ? undefined
      : await startMetricsListener(app.nodeMetrics, config.metricsHost, config.metricsPort);
  const warming = warmSearch(ctx.search, (error) => app.log.warn({ err: error }, "search warm-up failed"));
  const listsWarming = warmLists(ctx, app);
  let closed = false;
  return {
    app,
    ctx,
    searchCaughtUp: opened.searchCatchUp.done,
    baseUrl,
    metricsUrl: metricsListener?.url,
    async close() {
      if (closed) return;
      closed = true;
      await drain(ctx, app, config.shutdownGrace);
      cnSubjects?.close();
      await warming;
      await listsWarming.stop();
      await control?.close();
      const tlsClosed = tls ? closeServer(tls) : undefined;
      // Fastify closes the connections idle when it closes; one busy then (another node's request) turns idle
      // later and would hold the close until its keep-alive timeout (72 s): close those as they go idle too.
      const idle = tls ? undefined : setInterval(() => app.server.closeIdleConnections(), 100);
      await app.close().finally(() => clearInterval(idle));
      await tlsClosed;
      await worker?.stop();
      await metricsListener?.close();
      await opened.close();
    },
  };
}

/**
 * The shutdown's grace: the ping fails (ServiceFailure) for `seconds` while every other request is still answered,
 * so that a balancer's health check takes the process out before it stops accepting connections.
 */
async function drain(ctx: NodeContext, app: FastifyInstance, seconds: number): Promise<void> {
  if (seconds <= 0) return;
  ctx.draining = true;
  app.log.info(`shutting down: the ping fails for ${seconds} s while requests are still answered`);
  await sleep(seconds * 1000);
}

/** The list positions' warm-up (Database.warmLists), in the background; stop() aborts it and waits for it. */
function warmLists(ctx: NodeContext, app: FastifyInstance): { stop(): Promise<void> } {
  const abort = new AbortController();
  const started = performance.now();
  const done = ctx.db.warmLists(abort.signal).then(
    () => {
      const seconds = (performance.now() - started) / 1000;
      // Worth a line only on a node large enough for the walk to take a while.
      if (!abort.signal.aborted && seconds >= 1)
        app.log.info(`list positions warmed in ${seconds.toFixed(1)} s`);
    },
    (error: unknown) => {
      if (!abort.signal.aborted) app.log.warn({ err: error }, "list warm-up failed");
    },
  );
  return {
    stop() {
      abort.abort();
      return done;
    },
  };
}

/** Sessions from tokens signed by the node's own key or a trusted key, client certificates, and the CN. */
function sessionResolver(
  config: Readonly<Config>,
  warn: (message: string) => void,
  cnContext?: NodeContext,
  cnSubjects?: Refresher,
  signIn?: SignIn,
): SessionResolver {
  const signing = loadOrCreateSigningKey(config.dataDir);
  const fixed = [signing.publicKey, ...loadPublicKeys(config.trustedTokenKeys)];
  // A Member Node trusts the tokens its CN issues, with the keys it fetches from the CN (no copying by hand).
  const tokenKeys =
    config.role === "mn" && config.cnBaseUrl
      ? createCnTokenKeySource({ cnBaseUrl: config.cnBaseUrl, node: config, fixed, warn })
      : fixed;
  return createSessionResolver(config, {
    tokenKeys,
    maxTokenLifetime: config.maxTokenLifetime,
    clientCas: loadCaBundle(config.clientCa),
    ...(cnSubjects ? { cnSubjects } : {}),
    nodeId: config.nodeId,
    ...(signIn ? { browserSessions: signIn.sessions, providerTokens: signIn.tokens } : {}),
    cn: cnContext
      ? localSubjectInfoSource(cnContext)
      : config.cnBaseUrl
        ? createCnSubjectInfoSource({
            cnBaseUrl: config.cnBaseUrl,
            ttlMs: config.cnSubjectInfoTtl * 1000,
            warn,
            node: config,
          })
        : undefined,
  });
}

/**
 * HTTPS with client certificates: "The caller's identity (the session) is taken from the X.509 client certificate
 * presented in the SSL handshake." A certificate is asked for (when a client CA bundle is set) but not required,
 * and the handshake never fails over it: anonymous callers keep working, and a bad certificate is answered with
 * InvalidToken by the session layer rather than with a broken connection. The app (built by app.ts) is served
 * from this server through Fastify's `routing` handler.
 */
async function listenTls(app: FastifyInstance, config: Readonly<Config>): Promise<https.Server> {
  await app.ready();
  const ca = config.clientCa.map((file) => readFileSync(file));
  const server = https.createServer(
    {
      cert: readFileSync(config.tlsCert as string),
      key: readFileSync(config.tlsKey as string),
      ...(ca.length > 0 ? { ca, requestCert: true } : {}),
      rejectUnauthorized: false,
    },
    (request, response) => app.routing(request, response),
  );
  // Fastify's own defaults for the servers it creates: no overall request timeout (uploads may be long).
  server.keepAliveTimeout = 72_000;
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return server;
}

/** Stop accepting connections, let requests in flight finish (10 s at most), then close the rest. */
async function closeServer(server: https.Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const idle = setInterval(() => server.closeIdleConnections(), 100);
  const deadline = setTimeout(() => server.closeAllConnections(), 10_000);
  await closed;
  clearInterval(idle);
  clearTimeout(deadline);
}
