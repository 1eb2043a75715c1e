/**
 * harvest-many (only when named): BENCH_MANY_NODES Member Nodes (default 10) harvested by one Coordinating Node at
 * once, each MN in its own process and filled with `d1node load` (BENCH_MANY_OBJECTS each, default 20,000).
 * Figure: the objects per second of all of them together. Baseline, in the same run: one more MN of the same
 * size harvested alone by the same CN first. The notes give each node's finishing time (fairness) and the
 * CPU-seconds of the CN, the MNs and the PostgreSQL backends. BENCH_FEDERATION_DB=postgres: PostgreSQL alone.
 */
import path from "node:path";
import { harvestNode } from "../../../src/federation/harvest/harvest.ts";
import { harvestableNode } from "../../../src/federation/harvest/registry.ts";
import type { RunningNode } from "../../../src/node/start.ts";
import {
  loadMemberNode,
  type MemberNodeSetup,
  memberNodeConfig,
  serveMemberNode,
  startCoordinatingNode,
} from "../../lib/federation.ts";
import { cpuSplit, ownCpuSeconds, postgresCpuSeconds } from "../../lib/measure/cpu-split.ts";
import { type Backend, backend, tempDir } from "../../lib/node.ts";
import { cpuSecondsOf, type Served } from "../../lib/processes.ts";
import { record } from "../../lib/report.ts";
import { databases, type SectionOptions } from "../types.ts";

const NODES = Number(process.env.BENCH_MANY_NODES ?? 10);
const OBJECTS = Number(process.env.BENCH_MANY_OBJECTS ?? 20_000);
const MN_POOL = 3;

export async function harvestMany(options: SectionOptions): Promise<void> {
  const postgresOnly = process.env.BENCH_FEDERATION_DB === "postgres";
  for (const url of databases(options)) if (url || !postgresOnly) await onBackend(url);
}

async function onBackend(pgUrl: string | undefined): Promise<void> {
  const tmp = await tempDir("harvest-many");
  const cnDb = await backend(pgUrl);
  const setups: MemberNodeSetup[] = [];
  const served: Served[] = [];
  let cn: RunningNode | undefined;
  try {
    // Node 0 is the baseline, harvested alone; nodes 1..NODES are harvested together.
    for (let i = 0; i <= NODES; i++) {
      setups.push({
        id: `urn:node:BENCHMN${i}`,
        dir: path.join(tmp.dir, `mn${i}`),
        db: await backend(pgUrl),
        // Eleven MNs share one PostgreSQL server here (each would have its own): a few connections each.
        settings: { databasePoolSize: MN_POOL },
      });
    }
    cn = await startCoordinatingNode(
      tmp.dir,
      cnDb,
      setups.map((s) => s.dir),
    );
    for (const setup of setups) {
      const config = await memberNodeConfig(tmp.dir, setup, cn);
      await loadMemberNode(config, setup, OBJECTS);
      served.push(await serveMemberNode(config, setup, cn));
    }
    const nodes = setups.map((setup, i) => ({ setup, served: served[i] as Served }));
    const alone = await harvestAll(cn, cnDb, nodes.slice(0, 1));
    const together = await harvestAll(cn, cnDb, nodes.slice(1));
    const rate = (NODES * OBJECTS) / together.seconds;
    const baseline = OBJECTS / alone.seconds;
    record({
      section: "harvest-many",
      name: `${NODES} MNs of ${OBJECTS} objects harvested at once by one CN (${cnDb.dialect})`,
      value: rate,
      unit: "objects/s",
      baseline: { name: `one MN of ${OBJECTS} objects harvested alone`, value: baseline, unit: "objects/s" },
      ratio: rate / baseline,
      notes:
        `${together.seconds.toFixed(1)} s in all; nodes finished after ${together.finished.map((s) => s.toFixed(0)).join(", ")} s; ` +
        `CPU-s together: ${together.cpu}; alone: ${alone.cpu}`,
    });
  } finally {
    await Promise.all(served.map((s) => s.stop()));
    await cn?.close();
    await Promise.all(setups.map((s) => s.db.dispose()));
    await cnDb.dispose();
    await tmp.dispose();
  }
}

interface HarvestedNode {
  setup: MemberNodeSetup;
  served: Served;
}

/** Harvests `nodes` at once: the seconds in all, each node's finishing time, and the CPU-seconds used. */
async function harvestAll(cn: RunningNode, cnDb: Backend, nodes: HarvestedNode[]) {
  const cpu = cpuSplit({
    CN: ownCpuSeconds,
    MNs: () => nodes.reduce((sum, n) => sum + cpuSecondsOf(n.served.child.pid as number), 0),
    ...(cnDb.url
      ? {
          "PostgreSQL for the CN": () => postgresCpuSeconds(cnDb.url),
          "for the MNs": () => nodes.reduce((sum, n) => sum + postgresCpuSeconds(n.setup.db.url), 0),
        }
      : {}),
  });
  const started = performance.now();
  const finished = await Promise.all(
    nodes.map(async ({ setup }) => {
      const node = await harvestableNode(cn.ctx, setup.id);
      if (!node) throw new Error(`${setup.id} is not harvestable`);
      const result = await harvestNode(cn.ctx, node, { lagMs: 0 });
      if (result.outcomes.created !== OBJECTS) {
        throw new Error(`${setup.id}: created ${result.outcomes.created} of ${OBJECTS}`);
      }
      return (performance.now() - started) / 1000;
    }),
  );
  return {
    seconds: (performance.now() - started) / 1000,
    finished: finished.sort((a, b) => a - b),
    cpu: cpu.text(),
  };
}
