/**
 * One process's own scrape target: `GET /metrics` on its `metricsPort` (at `metricsHost`), this process's
 * registry alone, for serving processes behind a balancer (whose {basePath}/metrics answers from whichever
 * process the balancer picked) and for `d1node worker`, which serves no API. It answers whoever reaches it, as a
 * scrape target usually does: `metricsHost` (default 127.0.0.1) says who can.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { NodeMetrics } from "./node-metrics.ts";

export interface MetricsListener {
  /** The URL Prometheus scrapes, e.g. http://127.0.0.1:9464/metrics. */
  url: string;
  close(): Promise<void>;
}

export async function startMetricsListener(
  metrics: NodeMetrics,
  host: string,
  port: number,
): Promise<MetricsListener> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? "").split("?")[0];
    if (request.method !== "GET" || path !== "/metrics") {
      response.writeHead(404, { "content-type": "text/plain" }).end("Only GET /metrics is served here.\n");
      return;
    }
    metrics.exposition().then(
      ({ contentType, text }) =>
        response.writeHead(200, { "content-type": contentType, "cache-control": "no-store" }).end(text),
      (error: unknown) =>
        response
          .writeHead(500, { "content-type": "text/plain" })
          .end(`The metrics failed: ${String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shown}:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
