/** CNDiagnostic routes (v2): echoCredentials, echoSystemMetadata, echoIndexedObject. */
import type { FastifyInstance } from "fastify";
import * as diagnostic from "../../../services/cn/diagnostic.ts";
import { echoIndexedObject } from "../../../services/cn/echo-indexed.ts";
import { parseSystemMetadata, serializeSubjectInfo, serializeSystemMetadata } from "../../../types/index.ts";
import { callInfo, sendXml } from "../../call.ts";
import { readMultipart, requirePart } from "../../multipart.ts";
import type { RouteScope } from "../scope.ts";

export function registerCnDiagnosticRoutes(app: FastifyInstance, { ctx, version, prefix }: RouteScope): void {
  if (version !== "v2") return;
  app.get(
    `${prefix}/diag/subject`,
    { config: { apiMethod: "CNDiagnostic.echoCredentials" } },
    async (request, reply) =>
      sendXml(reply, serializeSubjectInfo(await diagnostic.echoCredentials(ctx, callInfo(request)))),
  );
  app.post(
    `${prefix}/diag/sysmeta`,
    { config: { apiMethod: "CNDiagnostic.echoSystemMetadata" } },
    async (request, reply) => {
      const body = await readMultipart(request);
      const sysmeta = await diagnostic.echoSystemMetadata(
        ctx,
        parseSystemMetadata(requirePart(body, "sysmeta")),
      );
      return sendXml(reply, serializeSystemMetadata(sysmeta, "v2"));
    },
  );
  app.post(
    `${prefix}/diag/object`,
    { config: { apiMethod: "CNDiagnostic.echoIndexedObject" } },
    async (request, reply) => {
      // Metadata documents and resource maps are small: the parts are read whole (16 MiB at most each).
      const body = await readMultipart(request);
      const xml = await echoIndexedObject(
        ctx,
        requirePart(body, "queryEngine"),
        parseSystemMetadata(requirePart(body, "sysmeta")),
        Buffer.from(requirePart(body, "object"), "utf8"),
      );
      return reply.code(200).type("text/xml; charset=utf-8").send(xml);
    },
  );
}
