/** Every Member Node route, for one API version. */
import type { FastifyInstance } from "fastify";
import type { RouteScope } from "../scope.ts";
import { MN_VIEW_ROUTES, registerViewRoutes } from "../view.ts";
import { registerAuthorizationRoutes } from "./authorization.ts";
import { registerCoreRoutes } from "./core.ts";
import { landingPage } from "./landing-page.ts";
import { registerPackageRoutes } from "./package.ts";
import { MN_QUERY_METHODS, registerQueryRoutes } from "./query.ts";
import { registerReadRoutes } from "./read.ts";
import { registerReplicationRoutes } from "./replication.ts";
import { registerResolveHashRoute } from "./resolve-hash.ts";
import { registerStorageRoutes } from "./storage.ts";

export function registerMemberNodeRoutes(app: FastifyInstance, scope: RouteScope): void {
  registerCoreRoutes(app, scope);
  registerReadRoutes(app, scope);
  registerResolveHashRoute(app, scope);
  registerStorageRoutes(app, scope);
  registerAuthorizationRoutes(app, scope);
  registerReplicationRoutes(app, scope);
  registerQueryRoutes(app, {
    prefix: scope.prefix,
    index: scope.ctx.search,
    methods: MN_QUERY_METHODS,
    maxFormBytes: scope.ctx.config.maxDocumentBytes,
    // A Member Node's dataUrl is its MNRead.get URL: the bytes themselves.
    links: () => ({ dataUrlPrefix: `${scope.ctx.config.baseUrl}/v2/object/` }),
  });
  registerPackageRoutes(app, scope);
  registerViewRoutes(app, scope, { ...MN_VIEW_ROUTES, landing: landingPage(scope) });
}
