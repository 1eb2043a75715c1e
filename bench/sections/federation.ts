/**
 * federation: the Coordinating Node's synchronization. The Member Node runs in its own process (`d1node serve`,
 * as on its own machine), the CN in the benchmark's process; the MN trusts the CN's signing key and knows its
 * subject, the CN has the MN registered (CNRegister.register, as the MN) and approved.
 *   harvest: the MN's data folder filled with `d1node load` (node stopped), then one harvest of all of it by the
 *     CN (listObjects pages of 1000, each object's system metadata fetched, validated, written and indexed).
 *     Target: 100,000 objects in <= 2 minutes. Baseline, in the same run: listing the same pages alone.
 *   create -> CN: objects created on the MN (which asks the CN to synchronize them, through its task queue);
 *     the time from sending the create until CN getSystemMetadata answers 200. Target: <= 5 s (the slowest).
 *     Baseline: the create request alone.
 * Sizes: BENCH_HARVEST_OBJECTS (default 100000), BENCH_SYNC_CREATES (default 20); BENCH_FEDERATION_DB=postgres
 * runs the PostgreSQL half alone. The harvest's notes give the CPU-seconds of the CN's process, the MN's, and the
 * PostgreSQL backends of each node's database (from /proc).
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { loadOrCreateSigningKey } from "../../src/auth/keys.ts";
import { mintToken } from "../../src/auth/tokens.ts";
import { resolveConfig } from "../../src/config/config.ts";
import { clientFor } from "../../src/federation/client.ts";
import { harvestNode } from "../../src/federation/harvest/harvest.ts";
import { harvestableNode } from "../../src/federation/harvest/registry.ts";
import { type RunningNode, startNode } from "../../src/node/start.ts";
import { approveNode } from "../../src/services/cn/register.ts";
import { CONTENT_TYPE, createBody, smallContent } from "../lib/multipart.ts";
import { type Backend, BIN, backend, dbFlags, runCli, tempDir } from "../lib/node.ts";
import { postgresCpuSeconds } from "../lib/postgres-cpu.ts";
import { cpuSecondsOf, median, type Served, serve } from "../lib/processes.ts";
import { record } from "../lib/report.ts";
import { databases, type SectionOptions } from "./types.ts";

const OBJECTS = Number(process.env.BENCH_HARVEST_OBJECTS ?? 100_000);
const CREATES = Number(process.env.BENCH_SYNC_CREATES ?? 20);
const HARVEST_TARGET_S = 120;
const SYNC_TARGET_MS = 5_000;
const ADMIN = "CN=bench-admin,DC=d1node,DC=org";
const CN_ID = "urn:node:BENCHCN";
const MN_ID = "urn:node:BENCHMN";
const subjectOf = (id: string) => `CN=${id},DC=dataone,DC=org`;
/** The MN's own schedule names no time soon: the benchmark starts the harvest itself. */
const NEVER = { sec: "0", min: "0", hour: "0", mday: "1", mon: "1", wday: "?", year: "2199" };

export async function federation(options: SectionOptions): Promise<void> {
  const postgresOnly = process.env.BENCH_FEDERATION_DB === "postgres";
  for (const url of databases(options)) if (url || !postgresOnly) await onBackend(url);
}

async function publicKeyFile(dir: string, dataDir: string, name: string): Promise<string> {
  const { publicKey } = loadOrCreateSigningKey(dataDir);
  const file = path.join(dir, `${name}.pem`);
  await writeFile(file, publicKey.export({ type: "spki", format: "pem" }));
  return file;
}

async function onBackend(pgUrl: string | undefined): Promise<void> {
  const tmp = await tempDir("federation");
  const cnDb = await backend(pgUrl);
  const mnDb = await backend(pgUrl);
  const cnDir = path.join(tmp.dir, "cn");
  const mnDir = path.join(tmp.dir, "mn");
  let cn: RunningNode | undefined;
  let mn: Served | undefined;
  try {
    const cnKey = await publicKeyFile(tmp.dir, cnDir, "cn");
    const mnKey = await publicKeyFile(tmp.dir, mnDir, "mn");
    cn = await startNode(
      resolveConfig({
        role: "cn",
        port: 0,
        dataDir: cnDir,
        nodeId: CN_ID,
        nodeSubject: subjectOf(CN_ID),
        adminSubjects: [ADMIN],
        trustedTokenKeys: [mnKey],
        logLevel: "warn",
        ...(cnDb.url ? { databaseUrl: cnDb.url } : {}),
      }),
      { logLevel: false },
    );
    const mnConfig = path.join(tmp.dir, "mn.json");
    await writeFile(
      mnConfig,
      JSON.stringify({
        nodeId: MN_ID,
        nodeSubject: subjectOf(MN_ID),
        cnSubjects: [subjectOf(CN_ID)],
        trustedTokenKeys: [cnKey],
        cnBaseUrl: cn.baseUrl,
        syncSchedule: NEVER,
      }),
    );
    const loadSeconds = await runCli([
      "load",
      "--count",
      String(OBJECTS),
      "-c",
      mnConfig,
      "--data-dir",
      mnDir,
      ...dbFlags(mnDb),
    ]);
    // Its search index built before it serves, as on a node in service (not during the harvest).
    await runCli(["index", "--missing", "-c", mnConfig, "--data-dir", mnDir, ...dbFlags(mnDb)]);
    process.stderr.write("\n");
    const args = ["serve", "-c", mnConfig, "--data-dir", mnDir, "--port", "0", "--log-level", "warn"];
    const mnArgs = [...args, "--admin-subject", ADMIN, ...dbFlags(mnDb)];
    // As users start it, unless node flags are asked for (BENCH_NODE_FLAGS, e.g. --cpu-prof).
    const flags = (process.env.BENCH_NODE_FLAGS ?? "").split(/\s+/).filter(Boolean);
    mn = flags.length > 0 ? await serve([...flags, BIN, ...mnArgs]) : await serve(mnArgs, {}, BIN);
    const mnUrl = mn.url.replace(/\/$/, "");
    await register(cn, mnDir, mnUrl);
    await harvest(cn, mnUrl, { cn: cnDb, mn: mnDb, mnPid: mn.child.pid as number }, loadSeconds);
    await createToCn(cn, mnDir, mnUrl, mnDb);
  } finally {
    await mn?.stop();
    await cn?.close();
    await mnDb.dispose();
    await cnDb.dispose();
    await tmp.dispose();
  }
}

/** CNRegister.register as the MN itself, then the administrator's approval. */
async function register(cn: RunningNode, mnDir: string, mnUrl: string): Promise<void> {
  const capabilities = await fetch(`${mnUrl}/v2/node`);
  if (!capabilities.ok) throw new Error(`MN getCapabilities: HTTP ${capabilities.status}`);
  const body = new FormData();
  body.append("node", new File([await capabilities.text()], "node.xml", { type: "text/xml" }));
  const token = await mintToken(loadOrCreateSigningKey(mnDir).privateKey, { subject: subjectOf(MN_ID) });
  const registered = await fetch(`${cn.baseUrl}/v2/node`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    body,
  });
  if (!registered.ok)
    throw new Error(`CNRegister.register: HTTP ${registered.status} ${await registered.text()}`);
  await approveNode(cn.ctx.db, MN_ID);
}

interface Processes {
  cn: Backend;
  mn: Backend;
  mnPid: number;
}

/** CPU-seconds so far: the CN (this process), the MN's process, each node's PostgreSQL backends. */
function cpuNow(p: Processes): number[] {
  const { user, system } = process.cpuUsage();
  return [
    (user + system) / 1e6,
    cpuSecondsOf(p.mnPid),
    postgresCpuSeconds(p.cn.url),
    postgresCpuSeconds(p.mn.url),
  ];
}

async function harvest(cn: RunningNode, mnUrl: string, p: Processes, loadSeconds: number): Promise<void> {
  const db = p.mn;
  const node = await harvestableNode(cn.ctx, MN_ID);
  if (!node) throw new Error("the MN is not harvestable");
  // Baseline: the same listObjects pages, listed and nothing else.
  const client = clientFor(cn.ctx, mnUrl);
  const listStarted = Date.now();
  let listed = 0;
  for (let start = 0; ; start += 1000) {
    const page = await client.listObjects({ start, count: 1000 });
    listed += page.items.length;
    if (page.items.length === 0 || start + page.items.length >= page.total) break;
  }
  const listSeconds = (Date.now() - listStarted) / 1000;
  const cpuBefore = cpuNow(p);
  const started = Date.now();
  const progress = setInterval(() => void reportProgress(cn, started), 30_000);
  const result = await harvestNode(cn.ctx, node, { lagMs: 0 }).finally(() => clearInterval(progress));
  const seconds = (Date.now() - started) / 1000;
  const [cnCpu, mnCpu, cnPg, mnPg] = cpuNow(p).map((after, i) =>
    (after - (cpuBefore[i] as number)).toFixed(1),
  );
  const held = await objectsHeld(cn);
  if (held !== OBJECTS || listed !== OBJECTS) {
    throw new Error(`harvested ${held} of ${OBJECTS} objects (${listed} listed)`);
  }
  record({
    section: "federation",
    name: `harvest of ${OBJECTS} objects from one MN (${db.dialect})`,
    value: seconds,
    unit: "s",
    baseline: {
      name: "listing the same pages alone (listObjects, count 1000)",
      value: listSeconds,
      unit: "s",
    },
    ratio: seconds / listSeconds,
    target: `<= ${HARVEST_TARGET_S} s`,
    pass: seconds <= HARVEST_TARGET_S,
    notes:
      `${Math.round(OBJECTS / seconds)} objects/s, ${result.pages} pages, ` +
      `created ${result.outcomes.created}, failed ${result.outcomes.failed}; MN loaded in ${loadSeconds.toFixed(1)} s; ` +
      `CPU-s: CN ${cnCpu}, MN ${mnCpu}` +
      (db.url ? `, PostgreSQL for the CN ${cnPg}, for the MN ${mnPg}` : ""),
  });
}

async function objectsHeld(cn: RunningNode): Promise<number> {
  const held = await cn.ctx.db.kysely
    .selectFrom("objects")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirst();
  return Number(held?.n);
}

/** A line every half minute on a long harvest: objects held so far and the pace. */
async function reportProgress(cn: RunningNode, started: number): Promise<void> {
  const held = await objectsHeld(cn);
  const seconds = (Date.now() - started) / 1000;
  process.stderr.write(
    `harvested ${held} objects in ${seconds.toFixed(0)} s (${Math.round(held / seconds)}/s)\n`,
  );
}

async function createToCn(cn: RunningNode, mnDir: string, mnUrl: string, db: Backend): Promise<void> {
  const admin = await mintToken(loadOrCreateSigningKey(mnDir).privateKey, { subject: ADMIN });
  const latencies: number[] = [];
  const creates: number[] = [];
  for (let i = 0; i < CREATES; i++) {
    const pid = `bench-sync-${Date.now().toString(36)}-${i}`;
    const started = performance.now();
    const created = await fetch(`${mnUrl}/v2/object`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}`, "content-type": CONTENT_TYPE },
      body: new Uint8Array(createBody(pid, smallContent(pid))),
    });
    if (!created.ok) throw new Error(`create: HTTP ${created.status} ${await created.text()}`);
    creates.push(performance.now() - started);
    for (;;) {
      const found = await fetch(`${cn.baseUrl}/v2/meta/${encodeURIComponent(pid)}`);
      await found.arrayBuffer();
      if (found.status === 200) break;
      if (performance.now() - started > 30_000) throw new Error(`${pid} did not reach the CN within 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    latencies.push(performance.now() - started);
  }
  const slowest = Math.max(...latencies);
  record({
    section: "federation",
    name: `create on the MN -> CN getSystemMetadata, ${CREATES} objects (${db.dialect})`,
    value: median(latencies),
    unit: "ms (median)",
    baseline: { name: "the create request alone", value: median(creates), unit: "ms (median)" },
    ratio: median(latencies) / median(creates),
    target: `<= ${SYNC_TARGET_MS} ms, the slowest included`,
    pass: slowest <= SYNC_TARGET_MS,
    runs: latencies.map((ms) => Math.round(ms)),
    notes: `slowest ${Math.round(slowest)} ms`,
  });
}
