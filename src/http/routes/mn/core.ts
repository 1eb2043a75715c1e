/** MNCore routes: getCapabilities, ping, getLogRecords. */

import type { FastifyInstance } from "fastify";
import * as core from "../../../services/mn/core.ts";
import { checkHealth } from "../../../services/ping.ts";
import { serializeLog, serializeNode } from "../../../types/index.ts";
import { callInfo, sendXml } from "../../call.ts";
import { logQuery } from "../../list-query.ts";
import type { Query } from "../../params.ts";
import type { RouteScope } from "../scope.ts";

export function registerCoreRoutes(app: FastifyInstance, { ctx, version, prefix }: RouteScope): void {
  const capabilities = { config: { apiMethod: "MNCore.getCapabilities" } };
  const sendCapabilities = async (_request: unknown, reply: import("fastify").FastifyReply) =>
    sendXml(reply, serializeNode(core.capabilities(ctx), version));
  app.get(`${prefix}/node`, capabilities, sendCapabilities);
  app.get(`${prefix}/`, capabilities, sendCapabilities);
  app.get(prefix, capabilities, sendCapabilities);

  // MNCore.ping: "Success is HTTP 200 with the current UTC time in the HTTP Date header (required) ... Expires
  // and Cache-Control headers are recommended."
  app.get(`${prefix}/monitor/ping`, { config: { apiMethod: "MNCore.ping" } }, async (_request, reply) => {
    await checkHealth(ctx);
    const now = new Date();
    return reply
      .header("Date", now.toUTCString())
      .header("Expires", now.toUTCString())
      .header("Cache-Control", "no-cache, no-store, must-revalidate")
      .type("text/plain; charset=utf-8")
      .send("OK");
  });

  app.get(`${prefix}/log`, { config: { apiMethod: "MNCore.getLogRecords" } }, async (request, reply) => {
    const { filter, start, count } = logQuery(request.query as Query);
    const page = await core.getLogRecords(ctx, callInfo(request), filter, start, count);
    return sendXml(reply, serializeLog(page, version));
  });
}
