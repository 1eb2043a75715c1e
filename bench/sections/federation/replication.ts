/**
 * replication: a local federation (`d1node federation`, one process: a CN and three MNs on SQLite). 200 objects
 * of 10 KiB created on MN1 (8 clients) with numberReplicas=2, timed from the first create until every object has
 * two completed replicas (MN1 asks the CN to synchronize each; synchronization plans its replicas); against the
 * creates of 200 objects without a replication policy (synchronized, not replicated) in the same run. Then one
 * 256 MiB object replicated twice, with the federation process's peak RSS during the transfers against its RSS
 * before them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { BIN, tempDir } from "../../lib/node.ts";
import { rssOf, sampleRss } from "../../lib/processes.ts";
import { record } from "../../lib/report.ts";
import type { SectionOptions } from "../types.ts";

const OBJECTS = 200;
const SMALL = 10 * 1024;
const LARGE = 256 * 1024 * 1024;
const CONCURRENCY = 8;
const TIMEOUT_MS = 10 * 60_000;

interface LocalFederation {
  child: ChildProcess;
  cn: string;
  mns: string[];
  token: string;
  stop(): Promise<void>;
}

export async function replication(_options: SectionOptions): Promise<void> {
  const tmp = await tempDir("replication");
  const fed = await startFederation(tmp.dir);
  try {
    const mn1 = fed.mns[0] as string;
    const objects = (tag: string) =>
      new Map(
        Array.from({ length: OBJECTS }, (_, i) => [
          `${tag}-${i}-${randomBytes(4).toString("hex")}`,
          randomBytes(SMALL),
        ]),
      );
    const plain = objects("plain");
    let started = performance.now();
    await inParallel([...plain.keys()], (pid) =>
      createObject(fed, mn1, pid, plain.get(pid) as Buffer, false),
    );
    const createMs = performance.now() - started;
    const replicated = objects("replicated");
    started = performance.now();
    await inParallel([...replicated.keys()], (pid) =>
      createObject(fed, mn1, pid, replicated.get(pid) as Buffer),
    );
    await waitForReplicas(fed, [...replicated.keys()]);
    const replicateMs = performance.now() - started;
    record({
      section: "replication",
      name: `${OBJECTS} objects of 10 KiB created with 2 replicas each, until all completed (sqlite)`,
      value: OBJECTS / (replicateMs / 1000),
      unit: "objects/s",
      baseline: {
        name: "creates without a replication policy",
        value: OBJECTS / (createMs / 1000),
        unit: "creates/s",
      },
      ratio: createMs / replicateMs,
      notes:
        "each object: create, synchronization, a plan, two replicate requests, two pulls (getReplica, the source " +
        "asking isNodeAuthorized), two reports, and the change notices of every replica-list write",
    });

    const big = randomBytes(LARGE);
    const pid = `repl-large-${randomBytes(4).toString("hex")}`;
    const pidOfProcess = fed.child.pid ?? 0;
    const before = rssOf(pidOfProcess);
    const rss = sampleRss(pidOfProcess);
    started = performance.now();
    await createObject(fed, mn1, pid, big);
    const bigCreateMs = performance.now() - started;
    await waitForReplicas(fed, [pid]);
    const bigMs = performance.now() - started - bigCreateMs;
    const peak = rss.stop();
    record({
      section: "replication",
      name: "256 MiB object, 2 replicas, from its create's answer to both completed (sqlite)",
      value: (2 * LARGE) / 2 ** 20 / (bigMs / 1000),
      unit: "MiB/s",
      baseline: { name: "its create on MN1", value: LARGE / 2 ** 20 / (bigCreateMs / 1000), unit: "MiB/s" },
      ratio: (2 * LARGE) / bigMs / (LARGE / bigCreateMs),
    });
    record({
      section: "replication",
      name: "federation process peak RSS during that create and both pulls (sqlite)",
      value: peak / 2 ** 20,
      unit: "MB",
      baseline: { name: "RSS before", value: before / 2 ** 20, unit: "MB" },
      ratio: peak / before,
      target: "no copy of the object in memory: peak - before < 256 MB",
      pass: peak - before < LARGE,
    });
  } finally {
    await fed.stop();
    await tmp.dispose();
  }
}

/** `d1node federation` with free ports; resolves once it has printed every node's URL and the token. */
function startFederation(dir: string): Promise<LocalFederation> {
  const child = spawn(
    BIN,
    ["federation", "--dir", dir, "--mns", "3", "--base-port", "0", "--log-level", "warn"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  let output = "";
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const token = /^token (\S+)$/m.exec(output)?.[1];
      if (!token) return;
      const cn = /^d1node CN \S+ serving (\S+)$/m.exec(output)?.[1] ?? "";
      const mns = [...output.matchAll(/^d1node MN \S+ serving (\S+)$/gm)].map((m) => m[1] as string);
      resolve({ child, cn, mns, token, stop });
    });
    child.once("exit", (code) => reject(new Error(`d1node federation exited with ${code}: ${output}`)));
  });
}

function sysmetaXml(pid: string, bytes: Buffer, replicated: boolean): string {
  const sha1 = createHash("sha1").update(bytes).digest("hex");
  const holder = "CN=bench-submitter,DC=d1node,DC=org";
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    '<ns2:systemMetadata xmlns:ns2="http://ns.dataone.org/service/types/v2.0">' +
    `<serialVersion>1</serialVersion><identifier>${pid}</identifier><formatId>application/octet-stream</formatId>` +
    `<size>${bytes.length}</size><checksum algorithm="SHA-1">${sha1}</checksum>` +
    `<submitter>${holder}</submitter><rightsHolder>${holder}</rightsHolder>` +
    "<accessPolicy><allow><subject>public</subject><permission>read</permission></allow></accessPolicy>" +
    (replicated ? '<replicationPolicy replicationAllowed="true" numberReplicas="2"/>' : "") +
    "</ns2:systemMetadata>"
  );
}

async function post(url: string, token: string, parts: Record<string, string | Blob>): Promise<void> {
  const body = new FormData();
  for (const [name, value] of Object.entries(parts)) body.append(name, value);
  const response = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${token}` }, body });
  const text = await response.text();
  if (!response.ok && !/already registered/.test(text))
    throw new Error(`${url}: HTTP ${response.status} ${text}`);
}

function createObject(
  fed: LocalFederation,
  mn: string,
  pid: string,
  bytes: Buffer,
  replicated = true,
): Promise<void> {
  return post(`${mn}/v2/object`, fed.token, {
    pid,
    object: new Blob([new Uint8Array(bytes)]),
    sysmeta: new Blob([sysmetaXml(pid, bytes, replicated)], { type: "text/xml" }),
  });
}

async function waitForReplicas(fed: LocalFederation, pids: string[]): Promise<void> {
  const waiting = new Set(pids);
  const deadline = Date.now() + TIMEOUT_MS;
  while (waiting.size > 0) {
    if (Date.now() > deadline) throw new Error(`${waiting.size} objects still short of replicas`);
    await inParallel([...waiting], async (pid) => {
      const response = await fetch(`${fed.cn}/v2/meta/${encodeURIComponent(pid)}`, {
        headers: { authorization: `Bearer ${fed.token}` },
      });
      const xml = await response.text();
      if ((xml.match(/<replicationStatus>completed<\/replicationStatus>/g) ?? []).length >= 2)
        waiting.delete(pid);
    });
    if (waiting.size > 0) await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function inParallel<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}
