/**
 * Metrics and the status page. Every answered request is counted by its route's API method and status, with its
 * time and bytes (src/metrics/node-metrics.ts). `GET {basePath}/metrics` serves the Prometheus text format and
 * `GET {basePath}/status` the operators' page, each as the `metrics` and `statusPage` settings say: not at all
 * ("off": NotImplemented, as any path the node does not serve), to anyone ("public"), or to an authenticated
 * administrator subject only ("admin", the default; anyone else gets NotAuthorized).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Exposure } from "../../config/config.ts";
import type { NodeContext } from "../../context/node-context.ts";
import { NotAuthorized } from "../../errors/exceptions.ts";
import { NodeMetrics } from "../../metrics/node-metrics.ts";
import { type Sampler, startSampling } from "../../metrics/samples.ts";
import { renderStatusPage } from "../../metrics/status-page.ts";
import { diskSpace } from "../../ops/disk-space.ts";
import { apiMethodOf } from "../api-method.ts";

export interface MetricsOptions {
  /** What samples the status page's plots (default: every 10 s by the system clock); tests drive their own. */
  sampling?: (metrics: NodeMetrics) => Sampler;
}

const SAMPLE_INTERVAL_MS = 10_000;

declare module "fastify" {
  interface FastifyInstance {
    /** The process's metrics (also served on its own metricsPort, src/metrics/metrics-listener.ts). */
    nodeMetrics: NodeMetrics;
  }
  interface FastifyRequest {
    /** The connection's bytes read and written when the request began (-1: no socket). */
    socketReadMark: number;
    socketWrittenMark: number;
  }
}

export function registerMetrics(
  app: FastifyInstance,
  ctx: NodeContext,
  options: MetricsOptions = {},
): NodeMetrics {
  const metrics = new NodeMetrics(ctx);
  app.decorate("nodeMetrics", metrics);
  app.decorateRequest("socketReadMark", -1);
  app.decorateRequest("socketWrittenMark", -1);
  app.addHook("onRequest", (request, _reply, done) => {
    const socket = request.raw.socket;
    if (socket) {
      request.socketReadMark = socket.bytesRead ?? 0;
      request.socketWrittenMark = socket.bytesWritten ?? 0;
    }
    done();
  });
  app.addHook("onResponse", (request, reply, done) => {
    metrics.observe({
      method: apiMethodOf(request) || "none",
      status: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
      ...bytesMoved(request),
    });
    done();
  });

  const { config } = ctx;
  if (config.metrics !== "off") {
    app.get(
      `${config.basePath}/metrics`,
      { config: { apiMethod: "d1node.metrics" } },
      async (request, reply) => {
        allow(request, config.metrics, "the metrics");
        const { contentType, text } = await metrics.exposition();
        return reply.header("cache-control", "no-store").type(contentType).send(text);
      },
    );
  }
  if (config.statusPage !== "off") {
    const sampler = (options.sampling ?? ((m) => startSampling(m, SAMPLE_INTERVAL_MS)))(metrics);
    app.addHook("onClose", async () => sampler.stop());
    app.get(
      `${config.basePath}/status`,
      { config: { apiMethod: "d1node.status" } },
      async (request, reply) => {
        allow(request, config.statusPage, "the status page");
        const page = renderStatusPage({
          nodeId: config.nodeId,
          nodeName: config.nodeName,
          role: config.role,
          startedAt: metrics.startedAt,
          now: new Date(),
          totals: metrics.totals,
          methods: metrics.methods,
          counts: await metrics.snapshot.get(),
          outcomes: ctx.outcomes,
          fixity: await ctx.db.audit.latest(),
          samples: sampler.ring.all(),
          search: ctx.search.status(),
          disk: await diskSpace(config),
        });
        return sendPage(reply, page);
      },
    );
  }
  return metrics;
}

function allow(request: FastifyRequest, exposure: Exposure, what: string): void {
  if (exposure === "public" || request.session?.isAdmin) return;
  throw new NotAuthorized(
    `Only the node's administrators may read ${what} (an adminSubjects subject with a client certificate or bearer token).`,
  );
}

function sendPage(reply: FastifyReply, page: string): FastifyReply {
  return reply
    .header("cache-control", "no-store")
    .header("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'")
    .type("text/html; charset=utf-8")
    .send(page);
}

/**
 * Body bytes received (the declared length of a body read to its end, else what the connection delivered while
 * the request was served) and bytes sent (headers and body) for one request.
 */
function bytesMoved(request: FastifyRequest): { bytesIn: number; bytesOut: number } {
  const socket = request.raw.socket;
  const read = request.socketReadMark;
  if (!socket || read < 0) return { bytesIn: 0, bytesOut: 0 };
  const declared = Number(request.headers["content-length"]);
  const bytesIn =
    request.raw.complete && Number.isSafeInteger(declared) && declared >= 0
      ? declared
      : Math.max(0, (socket.bytesRead ?? 0) - read);
  return { bytesIn, bytesOut: Math.max(0, (socket.bytesWritten ?? 0) - request.socketWrittenMark) };
}
