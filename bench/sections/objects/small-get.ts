/**
 * small-get: MNRead.get of 1 KiB public objects by anonymous callers, wrk on 50 keep-alive connections spread
 * over 1000 identifiers by a Lua script, against a bare Fastify hello-world with the same wrk settings.
 * Target: >= 10,000 req/s and >= 30 % of hello-world.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createLoad } from "../../lib/clients.ts";
import { backend, startNode, tempDir } from "../../lib/node.ts";
import { cpuSecondsOf, median, type Served, serve } from "../../lib/processes.ts";
import { record } from "../../lib/report.ts";
import { type WrkResult, wrk } from "../../lib/wrk.ts";
import { databases, type SectionOptions } from "../types.ts";

const OBJECTS = 1000;
const CONNECTIONS = 50;
const HELLO = fileURLToPath(new URL("../../hello-server.ts", import.meta.url));

export async function smallGet(options: SectionOptions): Promise<void> {
  const hello = await serve(["--import", "tsx", HELLO]);
  try {
    for (const url of databases(options)) await onBackend(options, hello, url);
  } finally {
    await hello.stop();
  }
}

async function onBackend(options: SectionOptions, hello: Served, pgUrl: string | undefined): Promise<void> {
  const tmp = await tempDir("small-get");
  const db = await backend(pgUrl);
  const node = await startNode(path.join(tmp.dir, "data"), db);
  try {
    const prefix = "get-";
    await createLoad({ baseUrl: node.baseUrl, token: node.token, count: OBJECTS, concurrency: 8, prefix });
    // The same request loop for both servers (hello-world answers "/"), so that wrk does the same work per request.
    const script = path.join(tmp.dir, "spread.lua");
    await writeFile(script, luaSpread(`${node.basePath}/v2/object/${prefix}`, OBJECTS));
    const helloScript = path.join(tmp.dir, "hello.lua");
    await writeFile(helloScript, luaSpread("/", OBJECTS, false));
    const settings = { connections: CONNECTIONS, seconds: options.seconds, threads: 1 };
    const nodeUrl = `${node.baseUrl}/v2/object/${prefix}0`;
    // Warm both (JIT, page cache, connection set-up), then alternate the measured runs.
    await wrk(hello.url, { ...settings, seconds: 2, script: helloScript });
    await checked(await wrk(nodeUrl, { ...settings, seconds: 2, script }));
    const helloRuns: number[] = [];
    const nodeRuns: number[] = [];
    const helloCpu: number[] = [];
    const nodeCpu: number[] = [];
    for (let i = 0; i < options.runs; i++) {
      const helloRun = await cpuPerRequest(hello.child.pid ?? 0, () =>
        wrk(hello.url, { ...settings, script: helloScript }),
      );
      helloRuns.push(helloRun.requestsPerSecond);
      helloCpu.push(helloRun.cpuMicros);
      const nodeRun = await cpuPerRequest(node.pid, () => wrk(nodeUrl, { ...settings, script }));
      nodeRuns.push(nodeRun.requestsPerSecond);
      nodeCpu.push(nodeRun.cpuMicros);
    }
    const value = median(nodeRuns);
    const baseline = median(helloRuns);
    const ratio = value / baseline;
    record({
      section: "small-get",
      name: `get 1 KiB over ${OBJECTS} pids, ${CONNECTIONS} connections (${db.dialect})`,
      value,
      unit: "req/s",
      baseline: { name: "Fastify hello-world", value: baseline, unit: "req/s" },
      ratio,
      target: ">= 10,000 req/s and ratio >= 0.30",
      pass: value >= 10_000 && ratio >= 0.3,
      runs: nodeRuns,
      notes:
        `hello-world runs: ${helloRuns.map((r) => Math.round(r)).join(", ")}; server CPU per request: ` +
        `${Math.round(median(nodeCpu))} us (hello-world ${Math.round(median(helloCpu))} us)`,
    });
  } finally {
    await node.stop();
    await db.dispose();
    await tmp.dispose();
  }
}

/** One wrk run and the server's CPU time per answered request in it (robust where the machine is shared). */
async function cpuPerRequest(
  pid: number,
  run: () => Promise<WrkResult>,
): Promise<{ requestsPerSecond: number; cpuMicros: number }> {
  const before = cpuSecondsOf(pid);
  const result = checked(await run());
  const cpu = cpuSecondsOf(pid) - before;
  return { requestsPerSecond: result.requestsPerSecond, cpuMicros: (cpu * 1e6) / result.requests };
}

export function checked(result: WrkResult): WrkResult {
  if (result.non2xx > 0 || !Number.isFinite(result.requestsPerSecond)) {
    throw new Error(`wrk saw ${result.non2xx} non-2xx answers:\n${result.output}`);
  }
  return result;
}

/** A wrk script sending GET `${target}${i}` for i = 0 .. count-1 in turn (or `target` alone: the same work). */
export function luaSpread(target: string, count: number, numbered = true): string {
  return [
    "local i = 0",
    "request = function()",
    `  i = (i + 1) % ${count}`,
    `  return wrk.format("GET", ${numbered ? `"${target}" .. i` : `"${target}"`})`,
    "end",
    "",
  ].join("\n");
}
