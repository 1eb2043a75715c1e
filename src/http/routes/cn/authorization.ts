/** CNAuthorization routes: isAuthorized, setAccessPolicy, setRightsHolder. */
import type { FastifyInstance } from "fastify";
import { InvalidRequest } from "../../../errors/exceptions.ts";
import * as authorization from "../../../services/cn/authorization.ts";
import { isAuthorized } from "../../../services/mn/authorization.ts";
import { parseAccessPolicy, serializeIdentifier } from "../../../types/index.ts";
import { callInfo, sendTrue, sendXml } from "../../call.ts";
import { type MultipartBody, readMultipart, requirePart } from "../../multipart.ts";
import { integerParam, type Query, stringParam } from "../../params.ts";
import { identifierAfter, requiredId } from "../../path-id.ts";
import type { RouteScope } from "../scope.ts";

/** The serialVersion part every CNAuthorization change carries. */
export function serialVersionPart(body: MultipartBody, pid: string): number {
  const serialVersion = integerParam(Object.fromEntries(body.parts), "serialVersion", -1);
  if (serialVersion < 0) throw new InvalidRequest("The serialVersion part is required.", { pid });
  return serialVersion;
}

export function registerCnAuthorizationRoutes(app: FastifyInstance, { ctx, prefix }: RouteScope): void {
  const isAuthorizedPrefix = `${prefix}/isAuthorized/`;
  app.get(
    `${isAuthorizedPrefix}*`,
    { config: { apiMethod: "CNAuthorization.isAuthorized" } },
    async (request, reply) => {
      const id = requiredId(identifierAfter(request, isAuthorizedPrefix));
      await isAuthorized(ctx, callInfo(request), id, stringParam(request.query as Query, "action"));
      return sendTrue(reply);
    },
  );

  const rulesPrefix = `${prefix}/accessRules/`;
  app.put(
    `${rulesPrefix}*`,
    { config: { apiMethod: "CNAuthorization.setAccessPolicy" } },
    async (request, reply) => {
      const id = requiredId(identifierAfter(request, rulesPrefix));
      const body = await readMultipart(request);
      const policy = parseAccessPolicy(requirePart(body, "accessPolicy"));
      await authorization.setAccessPolicy(ctx, callInfo(request), id, policy, serialVersionPart(body, id));
      return sendTrue(reply);
    },
  );

  const ownerPrefix = `${prefix}/owner/`;
  app.put(
    `${ownerPrefix}*`,
    { config: { apiMethod: "CNAuthorization.setRightsHolder" } },
    async (request, reply) => {
      const id = requiredId(identifierAfter(request, ownerPrefix));
      const body = await readMultipart(request);
      const pid = await authorization.setRightsHolder(
        ctx,
        callInfo(request),
        id,
        body.parts.get("userId"),
        serialVersionPart(body, id),
      );
      return sendXml(reply, serializeIdentifier(pid));
    },
  );
}
