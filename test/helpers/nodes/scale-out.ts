/**
 * The scale-out deployment of docs/deployment.md, each part its own OS process: `d1node serve --no-worker`
 * processes and `d1node worker` processes on one configuration file (one PostgreSQL database, one store), behind
 * HAProxy started on deploy/haproxy.cfg (the file the documentation shows). Used by the deployment test and the
 * scale-out benchmark.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ConfigInput } from "../../../src/config/config.ts";
import { type NodeProcess, spawnNode } from "./process-node.ts";
import { spawnWorker, type WorkerProcess } from "./worker-process.ts";

export const HAPROXY_CONFIG = fileURLToPath(new URL("../../../deploy/haproxy.cfg", import.meta.url));

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Balancer {
  child: ChildProcess;
  /** http://127.0.0.1:port */
  origin: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * HAProxy in the foreground on `configFile`, with `env` (the addresses deploy/haproxy.cfg reads), once it
 * answers a ping through to a node.
 */
export async function startBalancer(
  configFile: string,
  listenPort: number,
  env: Record<string, string> = {},
): Promise<Balancer> {
  const child = spawn("haproxy", ["-db", "-f", configFile], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const origin = `http://127.0.0.1:${listenPort}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}:\n${output}`);
    const answered = await fetch(`${origin}/mn/v2/monitor/ping`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (answered) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`haproxy did not pass a ping through within 30 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, origin, output: () => output, stop };
}

/** deploy/haproxy.cfg with its server lines replaced by one per address (for other numbers of processes). */
export async function balancerConfigFor(addresses: string[], listen: string, file: string): Promise<string> {
  const template = await readFile(HAPROXY_CONFIG, "utf8");
  const kept = template
    .split("\n")
    .filter((line) => !/^\s*server api\d+ /.test(line))
    .join("\n")
    // biome-ignore lint/suspicious/noTemplateCurlyInString: HAProxy's own environment reference, replaced here.
    .replace('"${D1NODE_LISTEN}"', listen);
  const servers = addresses.map((address, i) => `  server api${i + 1} ${address}`).join("\n");
  await writeFile(file, `${kept.trimEnd()}\n${servers}\n`);
  return file;
}

export interface Deployment {
  /** The balancer's base URL, e.g. http://127.0.0.1:port/mn: what clients and the Node document use. */
  baseUrl: string;
  /** Each serving process's own base URL (bypassing the balancer). */
  apiUrls: string[];
  /** With `metricsPorts`: each process's own scrape target, the serving processes' then the workers'. */
  metricsUrls: string[];
  apis: NodeProcess[];
  workers: WorkerProcess[];
  balancer: Balancer;
  /** The configuration file every process reads. */
  configFile: string;
  stop(): Promise<void>;
}

/**
 * `apis` serving processes and `workers` worker processes on `settings` (a PostgreSQL databaseUrl, a store,
 * dataDir with the token-signing key the processes share), written to `dir/node.json`, behind HAProxy.
 * Three serving processes use deploy/haproxy.cfg as it is; other numbers a copy with as many server lines.
 * `metricsPorts`: every process gets its own scrape target (--metrics-port). `dataDirs`: each serving process's
 * own data folder (--data-dir), else the configuration's for all.
 */
export async function startDeployment(
  dir: string,
  settings: ConfigInput,
  counts: { apis: number; workers: number; metricsPorts?: boolean; dataDirs?: string[] },
): Promise<Deployment> {
  const metricsUrls: string[] = [];
  const metricsArgs = async () => {
    if (!counts.metricsPorts) return [];
    const port = await freePort();
    metricsUrls.push(`http://127.0.0.1:${port}/metrics`);
    return ["--metrics-port", String(port)];
  };
  const listenPort = await freePort();
  const ports: number[] = [];
  for (let i = 0; i < counts.apis; i++) ports.push(await freePort());
  const baseUrl = `http://127.0.0.1:${listenPort}/mn`;
  const configFile = path.join(dir, "node.json");
  await writeFile(configFile, JSON.stringify({ ...settings, baseUrl }, null, 2));
  const apis: NodeProcess[] = [];
  const workers: WorkerProcess[] = [];
  let balancer: Balancer | undefined;
  const stop = async () => {
    await balancer?.stop();
    await Promise.all([...apis, ...workers].map((part) => part.kill()));
  };
  try {
    // One at a time: the first applies any schema migrations, the others find them done.
    for (const [i, port] of ports.entries()) {
      const own = counts.dataDirs?.[i];
      const args = ["--config", configFile, "--no-worker", "--port", String(port), ...(await metricsArgs())];
      if (own) args.push("--data-dir", own);
      apis.push(await spawnNode(args));
    }
    for (let i = 0; i < counts.workers; i++) workers.push(await spawnWorker(configFile, await metricsArgs()));
    const addresses = ports.map((port) => `127.0.0.1:${port}`);
    balancer =
      counts.apis === 3
        ? await startBalancer(HAPROXY_CONFIG, listenPort, {
            D1NODE_LISTEN: `127.0.0.1:${listenPort}`,
            D1NODE_API1: addresses[0] as string,
            D1NODE_API2: addresses[1] as string,
            D1NODE_API3: addresses[2] as string,
          })
        : await startBalancer(
            await balancerConfigFor(addresses, `127.0.0.1:${listenPort}`, path.join(dir, "haproxy.cfg")),
            listenPort,
          );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    baseUrl,
    apiUrls: ports.map((port) => `http://127.0.0.1:${port}/mn`),
    metricsUrls,
    apis,
    workers,
    balancer,
    configFile,
    stop,
  };
}
