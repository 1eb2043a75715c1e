/**
 * scale-out: small creates and small gets through HAProxy (deploy/haproxy.cfg) in front of 1, 2 and 4
 * `d1node serve --no-worker` processes plus one `d1node worker`, on one PostgreSQL database and one S3 bucket
 * (Ceph's RADOS Gateway). Baseline, in the same run: one `d1node serve` on the same database and bucket, reached
 * directly (no balancer). Ratios above 1 would be scaling; on a machine with 2 cores shared by the clients, the
 * gateway, PostgreSQL and the balancer, the ratio mostly shows what the balancer and the extra processes cost.
 * Needs --postgres (skipped with a line otherwise), and haproxy, wrk and radosgw (the runner checks).
 */
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { mintToken } from "../../../src/auth/tokens.ts";
import type { ConfigInput } from "../../../src/config/config.ts";
import { startDeployment } from "../../../test/helpers/nodes/scale-out.ts";
import { createTestBucket, s3NodeSettings } from "../../../test/helpers/peers/s3.ts";
import { createLoad } from "../../lib/clients.ts";
import { ADMIN, BIN, backend, tempDir } from "../../lib/node.ts";
import { median, serve } from "../../lib/processes.ts";
import { record } from "../../lib/report.ts";
import { wrk } from "../../lib/wrk.ts";
import { checked, luaSpread } from "../objects/small-get.ts";
import type { SectionOptions } from "../types.ts";

const CREATES = 200;
const CREATE_CLIENTS = 8;
const OBJECTS = 300;
const CONNECTIONS = 50;
const API_COUNTS = [1, 2, 4];

interface Figures {
  creates: number[];
  gets: number[];
}

export async function scaleOut(options: SectionOptions): Promise<void> {
  if (!options.postgres) {
    process.stdout.write("[scale-out] skipped: it needs --postgres URL (processes share one database)\n");
    return;
  }
  const tmp = await tempDir("scale-out");
  const db = await backend(options.postgres);
  const bucket = await createTestBucket();
  try {
    const dataDir = path.join(tmp.dir, "data");
    await mkdir(dataDir, { recursive: true });
    const token = await mintToken(loadOrCreateSigningKey(dataDir).privateKey, { subject: ADMIN });
    const settings: ConfigInput = {
      dataDir,
      databaseUrl: db.url,
      ...s3NodeSettings(bucket),
      adminSubjects: [ADMIN],
      logLevel: "warn",
    };
    // Objects for the gets: created once, read by every set-up.
    const baseline = await single(tmp.dir, settings, token, options);
    process.stdout.write(
      `[scale-out] ${os.availableParallelism()} cores: the ratios show overhead rather than scaling\n`,
    );
    for (const apis of API_COUNTS) {
      const dir = path.join(tmp.dir, `apis-${apis}`);
      await mkdir(dir, { recursive: true });
      const deployment = await startDeployment(dir, settings, { apis, workers: 1 });
      try {
        const figures = await measure(deployment.baseUrl, token, tmp.dir, options, `lb${apis}-`);
        report(apis, figures, baseline);
      } finally {
        await deployment.stop();
      }
    }
  } finally {
    await bucket.drop();
    await db.dispose();
    await tmp.dispose();
  }
}

/** The baseline: one `d1node serve` (worker inside), reached directly. Also creates the objects the gets read. */
async function single(dir: string, settings: ConfigInput, token: string, options: SectionOptions) {
  const configFile = path.join(dir, "single.json");
  await writeFile(configFile, JSON.stringify(settings));
  const node = await serve(["serve", "--config", configFile, "--port", "0"], {}, BIN);
  try {
    const baseUrl = node.url.replace(/\/$/, "");
    await createLoad({ baseUrl, token, count: OBJECTS, concurrency: CREATE_CLIENTS, prefix: "get-" });
    return await measure(baseUrl, token, dir, options, "single-");
  } finally {
    await node.stop();
  }
}

async function measure(
  baseUrl: string,
  token: string,
  dir: string,
  options: SectionOptions,
  prefix: string,
): Promise<Figures> {
  const script = path.join(dir, "spread.lua");
  await writeFile(script, luaSpread(`${new URL(baseUrl).pathname}/v2/object/get-`, OBJECTS));
  const target = `${baseUrl}/v2/object/get-0`;
  const settings = { connections: CONNECTIONS, seconds: options.seconds, threads: 1, script };
  // Warm up (JIT, connections, caches of every process) before the measured runs.
  await createLoad({ baseUrl, token, count: 100, concurrency: CREATE_CLIENTS, prefix: `${prefix}warm-` });
  await checked(await wrk(target, { ...settings, seconds: 2 }));
  const figures: Figures = { creates: [], gets: [] };
  for (let i = 0; i < options.runs; i++) {
    const load = { baseUrl, token, count: CREATES, concurrency: CREATE_CLIENTS, prefix: `${prefix}run${i}-` };
    figures.creates.push((await createLoad(load)).perSecond);
    figures.gets.push((await checked(await wrk(target, settings))).requestsPerSecond);
  }
  return figures;
}

function report(apis: number, figures: Figures, baseline: Figures): void {
  const processes = `${apis} API process${apis > 1 ? "es" : ""} + 1 worker behind HAProxy`;
  for (const [kind, unit, values, base] of [
    ["create 1 KiB", "creates/s", figures.creates, baseline.creates],
    ["get 1 KiB", "req/s", figures.gets, baseline.gets],
  ] as const) {
    const value = median([...values]);
    const single = median([...base]);
    record({
      section: "scale-out",
      name: `${kind}, ${processes} (postgres, s3)`,
      value,
      unit,
      baseline: { name: "one d1node serve, no balancer", value: single, unit },
      ratio: value / single,
      runs: [...values],
      notes: `baseline runs: ${base.map((r) => Math.round(r)).join(", ")}; clients: ${
        kind.startsWith("create") ? `${CREATE_CLIENTS} create clients` : `wrk, ${CONNECTIONS} connections`
      }`,
    });
  }
}
