/**
 * metrics: what a Prometheus scrape costs a node holding many objects (made by `d1node load`; default 100,000,
 * BENCH_METRICS_OBJECTS). Cold: the database's counts are read (objects and bytes, tasks, replica states, index
 * lag), at most once per 30 s; warm: answered from the cached counts. Baseline, in the same run and connection:
 * MNCore.ping (which asks the database one small question). Target: a warm scrape costs about a ping (<= 3x),
 * and a cold one stays well under a second.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { KeepAliveClient } from "../../lib/clients.ts";
import { type Backend, backend, dbFlags, runCli, startNode, tempDir } from "../../lib/node.ts";
import { median } from "../../lib/processes.ts";
import { record } from "../../lib/report.ts";
import { databases, type SectionOptions } from "../types.ts";

const OBJECTS = Number(process.env.BENCH_METRICS_OBJECTS ?? 100_000);
/** The counts are cached this long by the node (src/metrics/snapshot.ts). */
const CACHE_MS = 30_000;

export async function metrics(options: SectionOptions): Promise<void> {
  for (const url of databases(options)) await onBackend(options, url);
}

async function onBackend(options: SectionOptions, pgUrl: string | undefined): Promise<void> {
  const tmp = await tempDir("metrics");
  const db: Backend = await backend(pgUrl);
  const dataDir = `${tmp.dir}/data`;
  try {
    await runCli(["load", "--count", String(OBJECTS), "--data-dir", dataDir, ...dbFlags(db)]);
    process.stderr.write("\n");
    const node = await startNode(dataDir, db);
    const client = new KeepAliveClient(node.token);
    try {
      const label = `${OBJECTS} objects, ${db.dialect}`;
      const ping = `${node.baseUrl}/v2/monitor/ping`;
      const scrape = `${node.baseUrl}/metrics`;
      for (let i = 0; i < 20; i++) await client.ok(ping);
      const pings: number[] = [];
      for (let i = 0; i < 50; i++) pings.push((await client.ok(ping)).ms);
      const baseline = { name: "MNCore.ping", value: median(pings), unit: "ms" };
      const cold: number[] = [];
      const warm: number[] = [];
      for (let run = 0; run < options.runs; run++) {
        if (run > 0) await sleep(CACHE_MS + 500);
        cold.push((await client.ok(scrape)).ms);
        for (let i = 0; i < 20; i++) warm.push((await client.ok(scrape)).ms);
      }
      const coldMs = median(cold);
      record({
        section: "metrics",
        name: `cold scrape: counts read from the database (${label})`,
        value: coldMs,
        unit: "ms",
        baseline,
        ratio: coldMs / baseline.value,
        target: "< 1000 ms",
        pass: coldMs < 1000,
        runs: cold,
      });
      const warmMs = median(warm);
      record({
        section: "metrics",
        name: `warm scrape: cached counts (${label})`,
        value: warmMs,
        unit: "ms",
        baseline,
        ratio: warmMs / baseline.value,
        target: "<= 3x a ping",
        pass: warmMs <= 3 * baseline.value,
        notes: `${warm.length} scrapes`,
      });
    } finally {
      client.close();
      await node.stop();
    }
  } finally {
    await db.dispose();
    await tmp.dispose();
  }
}
