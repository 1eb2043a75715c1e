/**
 * Requests to a process while it works (search-rebuild): an HTTP server in this process whose every request reads
 * a random object's row from its database, and another process requesting it one request after another
 * (keep-alive) while `work` runs. The latencies show how long a request waits behind the work; the CPU this
 * process spends answering is measured apart (`cpuPerRequest`), so that the work's own CPU can be told from it.
 */
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Database } from "../../../src/db/types.ts";

export interface RowServer extends http.Server {
  port: number;
}

export interface Latencies {
  p50: number;
  p99: number;
  max: number;
  count: number;
}

/** Each request reads one object's row (a random one of `objects`: past the row cache). */
export function rowServer(db: Database, objects: number): Promise<RowServer> {
  const server = http.createServer((_request, response) => {
    db.objects.get(`bench.${Math.floor(Math.random() * objects)}.1`).then(
      (object) => response.end(object ? "ok" : "missing"),
      () => response.end("failed"),
    );
  }) as RowServer;
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      server.port = (server.address() as AddressInfo).port;
      resolve(server);
    }),
  );
}

/** Request `server` from another process, one request after another, while `work` runs. */
export async function requestsDuring(
  server: { port: number },
  work: () => Promise<void>,
): Promise<Latencies> {
  const client = spawn(process.execPath, ["-e", REQUESTER, String(server.port)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  client.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const ended = new Promise((resolve) => client.on("close", resolve));
  await work();
  client.stdin.end();
  await ended;
  const ms = (JSON.parse(out) as number[]).sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99), max: ms.at(-1) ?? 0, count: ms.length };
}

/**
 * The requests for `seconds` with nothing else running: their latencies, and this process's CPU-milliseconds per
 * request answered (all threads; the database backend's not included).
 */
export async function quietRequests(
  server: { port: number },
  seconds: number,
): Promise<Latencies & { cpuMsPerRequest: number }> {
  const cpu0 = process.cpuUsage();
  const latencies = await requestsDuring(
    server,
    () => new Promise((resolve) => setTimeout(resolve, seconds * 1000)),
  );
  const cpu = process.cpuUsage(cpu0);
  return { ...latencies, cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / Math.max(latencies.count, 1) };
}

/** Requests until its standard input ends, then prints the latencies (ms) as JSON. */
const REQUESTER = `
const http = require("node:http");
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const ms = []; let stop = false;
process.stdin.on("data", () => {}); process.stdin.on("end", () => { stop = true; });
(async () => {
  while (!stop) {
    const t = process.hrtime.bigint();
    const ok = await new Promise((resolve) => http.get({ host: "127.0.0.1", port: Number(process.argv[1]), agent },
      (r) => { r.resume(); r.on("end", () => resolve(true)); }).on("error", () => resolve(false)));
    if (ok) ms.push(Number(process.hrtime.bigint() - t) / 1e6);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  process.stdout.write(JSON.stringify(ms)); agent.destroy();
})();`;
