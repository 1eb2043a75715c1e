/**
 * log-aggregation (only when named, PostgreSQL only): a Member Node whose event log holds BENCH_LOG_RECORDS
 * entries (default 10,000,000; COPY, as in sections/ops/scale.ts, about BENCH_LOG_OBJECTS objects loaded by
 * `d1node load`, default 1,000), aggregated into an empty Coordinating Node in one run (MNCore.getLogRecords pages
 * of 1000, each page stored in the CN's event log). Target: 10 M entries in <= 10 minutes (>= 16,700 entries/s).
 * Baseline, in the same run: the CN's client paging through the same log alone. The notes give the CPU-seconds
 * of the CN, the MN and the PostgreSQL backends of each node's database. The CN runs in the bench's process:
 * BENCH_PROFILE_DIR=DIR writes its CPU profile of the aggregation there (BENCH_NODE_FLAGS profiles the MN).
 */
import path from "node:path";
import { progressLine } from "../../../src/cli/progress.ts";
import { clientFor } from "../../../src/federation/client.ts";
import { harvestNodeLog } from "../../../src/federation/logs/harvest-node.ts";
import type { RunningNode } from "../../../src/node/start.ts";
import { copyEvents } from "../../lib/corpus/scale-events.ts";
import {
  loadMemberNode,
  type MemberNodeSetup,
  memberNodeConfig,
  serveMemberNode,
  startCoordinatingNode,
} from "../../lib/federation.ts";
import { cpuSplit, ownCpuSeconds, postgresCpuSeconds } from "../../lib/measure/cpu-split.ts";
import { profiled } from "../../lib/measure/in-process-profile.ts";
import { backend, tempDir } from "../../lib/node.ts";
import { cpuSecondsOf, type Served } from "../../lib/processes.ts";
import { record } from "../../lib/report.ts";
import type { SectionOptions } from "../types.ts";

const RECORDS = Number(process.env.BENCH_LOG_RECORDS ?? 10_000_000);
const OBJECTS = Number(process.env.BENCH_LOG_OBJECTS ?? 1_000);
const PAGE = 1000;
const TARGET_PER_SECOND = 10_000_000 / 600;
const MN_ID = "urn:node:BENCHLOGMN";
const PREFIX = "log-";

export async function logAggregation(options: SectionOptions): Promise<void> {
  if (!options.postgres)
    throw new Error("the log-aggregation section runs on PostgreSQL: add --postgres URL");
  const tmp = await tempDir("log-aggregation");
  const cnDb = await backend(options.postgres);
  const setup: MemberNodeSetup = {
    id: MN_ID,
    dir: path.join(tmp.dir, "mn"),
    db: await backend(options.postgres),
  };
  let cn: RunningNode | undefined;
  let mn: Served | undefined;
  try {
    cn = await startCoordinatingNode(tmp.dir, cnDb, [setup.dir]);
    const config = await memberNodeConfig(tmp.dir, setup, cn);
    await runLoad(config, setup);
    mn = await serveMemberNode(config, setup, cn);
    const { ctx } = cn;
    const source = clientFor(ctx, mn.url.replace(/\/$/, ""));
    const listSeconds = await pageAlone(source);
    const cpu = cpuSplit({
      CN: ownCpuSeconds,
      MN: () => cpuSecondsOf((mn as Served).child.pid as number),
      "PostgreSQL for the CN": () => postgresCpuSeconds(cnDb.url),
      "for the MN": () => postgresCpuSeconds(setup.db.url),
    });
    const started = performance.now();
    const outcome = await profiled("log-aggregation-cn", () =>
      harvestNodeLog(ctx, MN_ID, source, { pageSize: PAGE, maxPages: Infinity }),
    );
    const seconds = (performance.now() - started) / 1000;
    if (outcome.added !== RECORDS) throw new Error(`aggregated ${outcome.added} of ${RECORDS} entries`);
    const rate = RECORDS / seconds;
    record({
      section: "log-aggregation",
      name: `aggregation of ${RECORDS} new log entries from one MN into the CN (postgres)`,
      value: rate,
      unit: "entries/s",
      baseline: {
        name: "the same getLogRecords pages alone",
        value: RECORDS / listSeconds,
        unit: "entries/s",
      },
      ratio: seconds / listSeconds,
      target: `>= ${Math.round(TARGET_PER_SECOND)} entries/s (10 M in 10 minutes)`,
      pass: rate >= TARGET_PER_SECOND,
      notes: `${seconds.toFixed(1)} s (paging alone ${listSeconds.toFixed(1)} s), ${outcome.pages} pages; CPU-s: ${cpu.text()}`,
    });
  } finally {
    await mn?.stop();
    await cn?.close();
    await setup.db.dispose();
    await cnDb.dispose();
    await tmp.dispose();
  }
}

/** The MN's objects by `d1node load`, then its log by COPY: entries about those objects, 1 ms apart. */
async function runLoad(config: string, setup: MemberNodeSetup): Promise<void> {
  await loadMemberNode(config, setup, OBJECTS, PREFIX);
  const width = String(Math.max(OBJECTS - 1, 0)).length;
  const line = progressLine();
  await copyEvents(
    setup.db.url as string,
    {
      count: RECORDS,
      firstDate: Date.now() - RECORDS - 60_000,
      spacingMs: 1,
      pidOf: (i) => `${PREFIX}${String((i * 7919) % Math.max(OBJECTS, 1)).padStart(width, "0")}`,
      nodeId: MN_ID,
    },
    (rows) => line.update(() => `events copied: ${rows} / ${RECORDS}`),
  );
  line.finish(`events copied: ${RECORDS}`);
}

/** The seconds the CN's client takes to page through the whole log, storing nothing. */
async function pageAlone(source: ReturnType<typeof clientFor>): Promise<number> {
  const started = performance.now();
  for (let start = 0; ; start += PAGE) {
    const page = await source.getLogRecords({ start, count: PAGE });
    if (page.items.length === 0 || start + page.items.length >= page.total) break;
  }
  return (performance.now() - started) / 1000;
}
