/**
 * Usage metrics (src/services/usage/), served by Member and Coordinating Nodes:
 * - {basePath}/usage/metrics: MetacatUI's `metricsUrl`; GET with `metricsRequest` in the query string, or POST
 *   with the request as the body (JSON, or a form field `metricsRequest`); JSON answer.
 * - {basePath}/usage/reports/dsr?begin_date=YYYY-MM[-DD]&end_date=YYYY-MM[-DD][&dataset=PID]: the COUNTER R5.1
 *   Dataset Report as JSON; without `dataset` (every dataset) for node administrators and CNs only. A bad
 *   argument is answered 400, a refused caller 403, with a COUNTER_SUSHI exception.
 * Only datasets whose metadata the caller may read are counted in either answer.
 */
import type { FastifyInstance } from "fastify";
import { isTrusted } from "../../auth/access.ts";
import type { NodeContext } from "../../context/node-context.ts";
import { datasetReport, parseReportRequest, ReportException } from "../../services/usage/dataset-report.ts";
import { answerMetrics, parseMetricsRequest } from "../../services/usage/metacatui-metrics.ts";
import { readableBy } from "../../services/usage/visible.ts";
import { callInfo } from "../call.ts";

/** Largest metrics request body taken (500 PIDs of a search page fit well below). */
const MAX_REQUEST_BYTES = 256 * 1024;

export function registerUsageRoutes(app: FastifyInstance, ctx: NodeContext): void {
  const root = `${ctx.config.basePath}/usage`;
  app.register(async (scoped) => {
    for (const type of ["application/x-www-form-urlencoded", "text/plain"]) {
      scoped.addContentTypeParser(
        type,
        { parseAs: "string", bodyLimit: MAX_REQUEST_BYTES },
        (_r, body, done) => done(null, String(body)),
      );
    }
    scoped.addContentTypeParser(
      "application/json",
      { parseAs: "string", bodyLimit: MAX_REQUEST_BYTES },
      (_r, body, done) => done(null, String(body)),
    );
    const config = { apiMethod: "usage.metrics" };
    const answer = async (text: string | undefined, session: ReturnType<typeof callInfo>["session"]) =>
      answerMetrics(ctx.db, parseMetricsRequest(text), readableBy(ctx, session));
    scoped.get(`${root}/metrics`, { config }, async (request, reply) => {
      const text = (request.query as Record<string, unknown>).metricsRequest;
      const body = await answer(typeof text === "string" ? text : undefined, callInfo(request).session);
      return reply.type("application/json; charset=utf-8").send(body);
    });
    scoped.post(`${root}/metrics`, { config }, async (request, reply) => {
      const raw = typeof request.body === "string" ? request.body.trim() : "";
      const text = raw.startsWith("{") ? raw : (new URLSearchParams(raw).get("metricsRequest") ?? undefined);
      const body = await answer(text, callInfo(request).session);
      return reply.type("application/json; charset=utf-8").send(body);
    });
  });
  app.get(`${root}/reports/dsr`, { config: { apiMethod: "usage.datasetReport" } }, async (request, reply) => {
    try {
      const { session } = callInfo(request);
      const report = await datasetReport(
        ctx,
        parseReportRequest(request.query as Record<string, unknown>),
        readableBy(ctx, session),
        isTrusted(session),
      );
      return reply.type("application/json; charset=utf-8").send(report);
    } catch (error) {
      if (!(error instanceof ReportException)) throw error;
      return reply.code(error.status).type("application/json; charset=utf-8").send(error.toJSON());
    }
  });
}
