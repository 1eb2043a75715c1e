/** MNCore routes: getCapabilities, ping, getLogRecords. */

import type { FastifyInstance } from "fastify";
import type { LogFilter } from "../../../db/types.ts";
import { InvalidRequest } from "../../../errors/exceptions.ts";
import * as core from "../../../services/mn/core.ts";
import { checkHealth } from "../../../services/ping.ts";
import { serializeLog, serializeNode } from "../../../types/index.ts";
import { callInfo, sendXml } from "../../call.ts";
import { dateRange, integerParam, type Query, stringParam } from "../../params.ts";
import type { RouteScope } from "./context.ts";

export const DEFAULT_COUNT = 1000;
/** A node "may return fewer records than count; the caller uses total to page". */
export const MAX_COUNT = 10000;

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

/** The getLogRecords query (MN and CN): fromDate, toDate, event, idFilter, start, count. */
export function logQuery(query: Query): {
  filter: Omit<LogFilter, "readableBy">;
  start: number;
  count: number;
} {
  // v2 names the prefix filter idFilter, v1 pidFilter; accept both on either version.
  const idFilter = stringParam(query, "idFilter") ?? stringParam(query, "pidFilter");
  const event = stringParam(query, "event");
  if (event !== undefined && event.trim() === "") throw new InvalidRequest("Parameter event is empty.");
  const start = integerParam(query, "start", 0);
  const count = Math.min(integerParam(query, "count", DEFAULT_COUNT), MAX_COUNT);
  const filter = { ...dateRange(query), ...(event ? { event } : {}), ...(idFilter ? { idFilter } : {}) };
  return { filter, start, count };
}
