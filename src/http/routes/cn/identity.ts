/** CNIdentity routes: accounts, identity mapping, groups. */
import type { FastifyInstance } from "fastify";
import * as identity from "../../../services/cn/identity.ts";
import { parseGroup, parsePerson, serializeSubjectInfo } from "../../../types/index.ts";
import { document, escapeText, NS_V1 } from "../../../types/xml.ts";
import { callInfo, sendTrue, sendXml } from "../../call.ts";
import { readMultipart, requirePart } from "../../multipart.ts";
import { integerParam, type Query, stringParam } from "../../params.ts";
import { identifierAfter, requiredId } from "../../path-id.ts";
import type { RouteScope } from "../scope.ts";

const subjectDocument = (subject: string) => document(NS_V1, "subject", "", escapeText(subject));

export function registerCnIdentityRoutes(app: FastifyInstance, { ctx, prefix }: RouteScope): void {
  const accounts = `${prefix}/accounts`;
  app.post(accounts, { config: { apiMethod: "CNIdentity.registerAccount" } }, async (request, reply) => {
    const body = await readMultipart(request);
    const person = parsePerson(requirePart(body, "person"));
    return sendXml(reply, subjectDocument(await identity.registerAccount(ctx, callInfo(request), person)));
  });
  app.get(accounts, { config: { apiMethod: "CNIdentity.listSubjects" } }, async (request, reply) => {
    const query = request.query as Query;
    const info = await identity.listSubjects(
      ctx,
      stringParam(query, "query") ?? "",
      stringParam(query, "status"),
      integerParam(query, "start", 0),
      integerParam(query, "count", 100),
    );
    return sendXml(reply, serializeSubjectInfo(info));
  });

  const verification = `${accounts}/verification/`;
  app.put(
    `${verification}*`,
    { config: { apiMethod: "CNIdentity.verifyAccount" } },
    async (request, reply) => {
      await identity.verifyAccount(
        ctx,
        callInfo(request),
        requiredId(identifierAfter(request, verification)),
      );
      return sendTrue(reply);
    },
  );

  app.post(`${accounts}/map`, { config: { apiMethod: "CNIdentity.mapIdentity" } }, async (request, reply) => {
    const body = await readMultipart(request);
    const { parts } = body;
    await identity.mapIdentity(
      ctx,
      callInfo(request),
      parts.get("primarySubject"),
      parts.get("secondarySubject"),
    );
    return sendTrue(reply);
  });
  const map = `${accounts}/map/`;
  app.delete(`${map}*`, { config: { apiMethod: "CNIdentity.removeMapIdentity" } }, async (request, reply) => {
    await identity.removeMapIdentity(ctx, callInfo(request), requiredId(identifierAfter(request, map)));
    return sendTrue(reply);
  });

  app.post(
    `${accounts}/pendingmap`,
    { config: { apiMethod: "CNIdentity.requestMapIdentity" } },
    async (request, reply) => {
      const body = await readMultipart(request);
      await identity.requestMapIdentity(ctx, callInfo(request), body.parts.get("subject"));
      return sendTrue(reply);
    },
  );
  const pending = `${accounts}/pendingmap/`;
  app.put(
    `${pending}*`,
    { config: { apiMethod: "CNIdentity.confirmMapIdentity" } },
    async (request, reply) => {
      await identity.confirmMapIdentity(
        ctx,
        callInfo(request),
        requiredId(identifierAfter(request, pending)),
      );
      return sendTrue(reply);
    },
  );
  app.delete(
    `${pending}*`,
    { config: { apiMethod: "CNIdentity.denyMapIdentity" } },
    async (request, reply) => {
      await identity.denyMapIdentity(ctx, callInfo(request), requiredId(identifierAfter(request, pending)));
      return sendTrue(reply);
    },
  );
  app.get(
    `${pending}*`,
    { config: { apiMethod: "CNIdentity.getPendingMapIdentity" } },
    async (request, reply) => {
      const subject = requiredId(identifierAfter(request, pending));
      return sendXml(
        reply,
        serializeSubjectInfo(await identity.getPendingMapIdentity(ctx, callInfo(request), subject)),
      );
    },
  );

  const account = `${accounts}/`;
  app.get(`${account}*`, { config: { apiMethod: "CNIdentity.getSubjectInfo" } }, async (request, reply) => {
    const subject = requiredId(identifierAfter(request, account));
    return sendXml(reply, serializeSubjectInfo(await identity.getSubjectInfo(ctx, subject)));
  });
  app.put(`${account}*`, { config: { apiMethod: "CNIdentity.updateAccount" } }, async (request, reply) => {
    const subject = requiredId(identifierAfter(request, account));
    const body = await readMultipart(request);
    const person = parsePerson(requirePart(body, "person"));
    return sendXml(
      reply,
      subjectDocument(await identity.updateAccount(ctx, callInfo(request), subject, person)),
    );
  });

  app.post(
    `${prefix}/groups`,
    { config: { apiMethod: "CNIdentity.createGroup" } },
    async (request, reply) => {
      const body = await readMultipart(request);
      const group = parseGroup(requirePart(body, "group"));
      return sendXml(reply, subjectDocument(await identity.createGroup(ctx, callInfo(request), group)));
    },
  );
  app.put(`${prefix}/groups`, { config: { apiMethod: "CNIdentity.updateGroup" } }, async (request, reply) => {
    const body = await readMultipart(request);
    await identity.updateGroup(ctx, callInfo(request), parseGroup(requirePart(body, "group")));
    return sendTrue(reply);
  });
}
