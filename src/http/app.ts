/**
 * The HTTP application: parse, authenticate, call one service function, serialise. Backends never see a request.
 */
import multipart from "@fastify/multipart";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import type { SignIn } from "../auth/oidc/setup.ts";
import type { SessionResolver } from "../auth/session.ts";
import type { NodeContext } from "../context/node-context.ts";
import { uploadLocks } from "../db/objects/upload-locks.ts";
import { openUploadArea } from "../uploads/upload-area.ts";
import { decorateApiMethod } from "./api-method.ts";
import { listPathRewriter } from "./list-paths.ts";
import { parseQueryString, type Query, refuseNulParams } from "./params.ts";
import { registerAccessLog } from "./plugins/access-log.ts";
import { registerCors } from "./plugins/cors.ts";
import { registerErrorHandling } from "./plugins/errors.ts";
import { FrameworkErrors } from "./plugins/framework-errors.ts";
import { type MetricsOptions, registerMetrics } from "./plugins/metrics.ts";
import { registerRequestBodies } from "./plugins/request-bodies.ts";
import { sessionCookie } from "./plugins/session-cookie.ts";
import { registerSessions } from "./plugins/sessions.ts";
import { registerCoordinatingNodeRoutes } from "./routes/cn/index.ts";
import { registerNodeAdminRoutes } from "./routes/cn/node-admin.ts";
import { registerFrontDoor } from "./routes/front-door.ts";
import { registerLandingRoutes } from "./routes/landing.ts";
import { registerMemberNodeRoutes } from "./routes/mn/index.ts";
import { registerOaiRoutes } from "./routes/oai.ts";
import { registerPortalRoutes } from "./routes/portal/index.ts";
import { registerReviewRoutes } from "./routes/review.ts";
import { registerTokenKeysRoute } from "./routes/token-keys.ts";
import { registerUploadRoutes } from "./routes/uploads.ts";
import { registerUsageRoutes } from "./routes/usage.ts";
import { registerLoneCnReads } from "./routes/website/cn-reads.ts";
import { registerLoneCnReserve } from "./routes/website/cn-reserve.ts";
import { registerWebsite } from "./routes/website/static.ts";

export interface AppOptions {
  ctx: NodeContext;
  sessions: SessionResolver;
  /** The node's pino logger (src/context/logger.ts); none: no logging. Requests are logged at debug and trace. */
  logger?: FastifyBaseLogger;
  /** The status page's sampling (tests sample faster). */
  metrics?: MetricsOptions;
  /** Browser sign-in (OpenID Connect): the session cookie counts and {basePath}/portal is served. */
  signIn?: SignIn;
}

export async function buildApp({
  ctx,
  sessions,
  logger,
  metrics,
  signIn,
}: AppOptions): Promise<FastifyInstance> {
  const logLevel = logger?.level;
  const frameworkErrors = new FrameworkErrors(ctx.config.nodeId);
  const app = Fastify({
    frameworkErrors: frameworkErrors.handler,
    clientErrorHandler: frameworkErrors.clientError,
    rewriteUrl: listPathRewriter(ctx.config.basePath),
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    exposeHeadRoutes: false,
    routerOptions: { maxParamLength: 10_000, querystringParser: parseQueryString },
    logController: new LogController({ disableRequestLogging: logLevel !== "debug" && logLevel !== "trace" }),
  });
  app.decorate("uploadIdleMs", ctx.config.uploadIdleTimeout * 1000);
  decorateApiMethod(app);
  registerErrorHandling(app, ctx.config.nodeId);
  frameworkErrors.noteRoutes(app);
  registerCors(app);
  app.addHook("onRequest", (request, _reply, done) => {
    refuseNulParams(request.query as Query);
    done();
  });
  await app.register(multipart, {
    limits: { fileSize: 2 ** 50, files: 4, fields: 16, parts: 20, fieldSize: ctx.config.maxDocumentBytes },
  });
  const cookie = signIn
    ? sessionCookie("d1node_session", () => signIn.redirectUri().startsWith("https:"))
    : undefined;
  registerSessions(app, sessions, ctx.config, cookie);
  registerAccessLog(app);
  registerRequestBodies(app, ctx.config);
  registerTokenKeysRoute(app, ctx.config);
  if (signIn && cookie) registerPortalRoutes(app, ctx.config, signIn, cookie);
  if (ctx.config.role === "cn") registerNodeAdminRoutes(app, ctx);
  registerMetrics(app, ctx, metrics);
  app.decorate("uploads", undefined);
  if (ctx.config.role === "mn") {
    const { dataDir, basePath, nodeId, uploadMaxSize, uploadExpiry, uploadMaxOpen } = ctx.config;
    const uploads = await openUploadArea({
      place: ctx.store.uploadPlace,
      dataDir,
      records: ctx.db.uploads,
      // Read when an upload is made: a node on port 0 knows its URL only once it listens.
      baseUrl: () => ctx.config.baseUrl,
      basePath,
      nodeId,
      locks: uploadLocks(ctx.db.postgresUrl),
      maxSize: uploadMaxSize,
      maxOpen: uploadMaxOpen,
      expirySeconds: uploadExpiry,
    });
    app.uploads = uploads;
    app.addHook("onClose", async () => uploads.close());
    registerUploadRoutes(app, ctx, uploads);
    registerOaiRoutes(app, ctx);
    registerReviewRoutes(app, ctx);
  }
  // A lone Member Node answers its website's CN calls itself: MetacatUI's d1CNBaseUrl is the node.
  if (ctx.config.role === "mn" && !ctx.config.cnBaseUrl) {
    registerLoneCnReads(app, ctx, signIn?.store);
    registerLoneCnReserve(app, ctx);
  }
  if (ctx.config.website) await registerWebsite(app, ctx.config, ctx.config.website);
  registerFrontDoor(app, ctx);
  if (ctx.config.role === "mn") registerLandingRoutes(app, ctx);
  registerUsageRoutes(app, ctx);
  for (const version of ["v1", "v2"] as const) {
    const scope = { ctx, version, prefix: `${ctx.config.basePath}/${version}` };
    if (ctx.config.role === "cn") registerCoordinatingNodeRoutes(app, scope);
    else registerMemberNodeRoutes(app, scope);
  }
  return app;
}
