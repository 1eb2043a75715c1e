/** MNAuthorization routes: isAuthorized. */
import type { FastifyInstance } from "fastify";
import { isAuthorized } from "../../../services/mn/authorization.ts";
import { callInfo, sendTrue } from "../../call.ts";
import { type Query, stringParam } from "../../params.ts";
import { identifierAfter, requiredId } from "../../path-id.ts";
import type { RouteScope } from "../scope.ts";

export function registerAuthorizationRoutes(app: FastifyInstance, { ctx, prefix }: RouteScope): void {
  const isAuthorizedPrefix = `${prefix}/isAuthorized/`;
  app.get(
    `${isAuthorizedPrefix}*`,
    { config: { apiMethod: "MNAuthorization.isAuthorized" } },
    async (request, reply) => {
      const id = requiredId(identifierAfter(request, isAuthorizedPrefix));
      await isAuthorized(ctx, callInfo(request), id, stringParam(request.query as Query, "action"));
      return sendTrue(reply);
    },
  );
}
