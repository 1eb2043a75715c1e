/**
 * Background-work fault tests: `d1node worker` processes on a node's configuration, Member Nodes filled in bulk,
 * and a count of the calls a Member Node answers (which object's system metadata was read, how often).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { bulkLoadObjects } from "../../../src/db/objects/bulk-load.ts";
import type { StoredObject } from "../../../src/db/types.ts";
import type { RunningNode } from "../../../src/node/start.ts";

const BIN = fileURLToPath(new URL("../../../bin/d1node.js", import.meta.url));

/** The node's configuration as a JSON file any `d1node` command reads with --config (port and URL left free). */
export async function writeConfigFile(node: RunningNode, dir: string, name: string): Promise<string> {
  const file = path.join(dir, `${name}.json`);
  const { port: _port, baseUrl: _baseUrl, ...config } = node.ctx.config;
  await writeFile(file, JSON.stringify(config, null, 2));
  return file;
}

export interface WorkerProcess {
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** The tasks it finished, as "kind key" (one entry per run). */
  done(): string[];
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** `d1node worker --config <file> --verbose ...args`, once it says it runs. */
export async function spawnWorker(configFile: string, args: string[] = []): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [BIN, "worker", "--config", configFile, "--verbose", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (/d1node worker for \S+ running/.test(output)) {
        clearInterval(timer);
        resolve();
      }
    }, 20);
    child.once("exit", (code) => {
      clearInterval(timer);
      reject(new Error(`worker exited with ${code}:\n${output}`));
    });
  });
  return {
    child,
    output: () => output,
    done: () => [...output.matchAll(/^task (\S+) (\S+) \(run \d+\) done/gm)].map((m) => `${m[1]} ${m[2]}`),
    kill: (signal = "SIGTERM") =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill(signal);
      }),
  };
}

/** Per identifier, how many times the node answered getSystemMetadata for it; and its listObjects calls. */
export interface CallCount {
  sysmetaReads: Map<string, number>;
  listCalls(): number;
}

export function countCalls(node: RunningNode): CallCount {
  const sysmetaReads = new Map<string, number>();
  let lists = 0;
  node.app.server.on("request", (request: { method?: string; url?: string }) => {
    const url = new URL(request.url ?? "/", "http://node");
    const meta = /\/v[12]\/meta\/([^/]+)$/.exec(url.pathname);
    if (request.method === "GET" && meta?.[1]) {
      const pid = decodeURIComponent(meta[1]);
      sysmetaReads.set(pid, (sysmetaReads.get(pid) ?? 0) + 1);
    }
    if (request.method === "GET" && /\/v[12]\/object$/.test(url.pathname)) lists++;
  });
  return { sysmetaReads, listCalls: () => lists };
}

/** `count` public CSV objects of this Member Node (one shared content), dated a millisecond apart; their PIDs. */
export async function fillMemberNode(node: RunningNode, prefix: string, count: number): Promise<string[]> {
  const { ctx } = node;
  const staged = await ctx.store.stage(Readable.from([Buffer.from("a,b\n1,2\n")]));
  await staged.commit();
  const subject = "CN=bulk,DC=dataone,DC=org";
  const base = Date.now() - count - 5_000; // older than the harvest's lag
  const pids = Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(6, "0")}`);
  const objects: StoredObject[] = pids.map((identifier, i) => ({
    contentKey: staged.key,
    digests: staged.digests,
    isReplica: false,
    sysmeta: {
      serialVersion: 1,
      identifier,
      formatId: "text/csv",
      size: staged.digests.size,
      checksum: { algorithm: "SHA-256", value: staged.digests.sha256 },
      submitter: subject,
      rightsHolder: subject,
      accessPolicy: [{ subjects: ["public"], permissions: ["read"] }],
      replicationPolicy: { replicationAllowed: false, preferredMemberNodes: [], blockedMemberNodes: [] },
      archived: false,
      dateUploaded: new Date(base + i),
      dateSysMetadataModified: new Date(base + i),
      originMemberNode: ctx.config.nodeId,
      authoritativeMemberNode: ctx.config.nodeId,
      replicas: [],
    },
  }));
  await bulkLoadObjects(ctx.db, objects);
  return pids;
}
