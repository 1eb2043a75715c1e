/** Every Coordinating Node route, for one API version. */
import type { FastifyInstance } from "fastify";
import type { RouteScope } from "../mn/context.ts";
import { registerCnAuthorizationRoutes } from "./authorization.ts";
import { registerCnCoreRoutes } from "./core.ts";
import { registerCnDiagnosticRoutes } from "./diagnostic.ts";
import { registerCnIdentityRoutes } from "./identity.ts";
import { registerCnReadRoutes } from "./read.ts";
import { registerCnRegisterRoutes } from "./register.ts";
import { registerCnReplicationRoutes } from "./replication.ts";

export function registerCoordinatingNodeRoutes(app: FastifyInstance, scope: RouteScope): void {
  registerCnCoreRoutes(app, scope);
  registerCnReadRoutes(app, scope);
  registerCnRegisterRoutes(app, scope);
  registerCnAuthorizationRoutes(app, scope);
  registerCnIdentityRoutes(app, scope);
  registerCnReplicationRoutes(app, scope);
  registerCnDiagnosticRoutes(app, scope);
}
