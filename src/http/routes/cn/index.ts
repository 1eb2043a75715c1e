/** Every Coordinating Node route, for one API version. */
import type { FastifyInstance } from "fastify";
import { cnView } from "../../../services/cn/view.ts";
import type { RouteScope } from "../scope.ts";
import { registerViewRoutes } from "../view.ts";
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
  registerViewRoutes(app, scope, {
    methods: { list: "CNView.listViews", view: "CNView.view" },
    render: cnView,
    label: "CNView.view",
  });
}
