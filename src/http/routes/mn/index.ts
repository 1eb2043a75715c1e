/** Every Member Node route, for one API version. */
import type { FastifyInstance } from "fastify";
import { registerAuthorizationRoutes } from "./authorization.ts";
import type { RouteScope } from "./context.ts";
import { registerCoreRoutes } from "./core.ts";
import { registerPackageRoutes } from "./package.ts";
import { registerReadRoutes } from "./read.ts";
import { registerStorageRoutes } from "./storage.ts";
import { registerViewRoutes } from "./view.ts";

export function registerMemberNodeRoutes(app: FastifyInstance, scope: RouteScope): void {
  registerCoreRoutes(app, scope);
  registerReadRoutes(app, scope);
  registerStorageRoutes(app, scope);
  registerAuthorizationRoutes(app, scope);
  registerPackageRoutes(app, scope);
  registerViewRoutes(app, scope);
}
