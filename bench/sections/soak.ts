/**
 * soak: a node under honest load with hostile clients mixed in, for `--minutes` (default 30), on SQLite or, with
 * --postgres, on a fresh PostgreSQL database. Honest clients must see no error; hostile clients must get the
 * answers the spec gives them, and never more than one winner of a seriesId or a credentialed CORS answer; the
 * node's RSS must stay flat (trend over the second half within --rss-trend-mb per 10 minutes, judged on runs of
 * 10 minutes or more). Fails (the runner exits 1) otherwise. Ctrl-C ends it early, with its report.
 */
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { loadOrCreateSigningKey } from "../../src/auth/keys.ts";
import { ADMIN, backend, startNode, tempDir } from "../lib/node.ts";
import { record } from "../lib/report.ts";
import { HonestClient } from "../soak/honest.ts";
import {
  badIdentifiers,
  type HostileContext,
  hostileOrigins,
  missingBoundary,
  tokenWithoutExpiry,
} from "../soak/hostile.ts";
import { Sampler } from "../soak/memory.ts";
import { sidRace } from "../soak/race.ts";
import { oversized, StalledUploads } from "../soak/raw.ts";
import { finalTable, progressLine, type Verdict, writeResult } from "../soak/report.ts";
import { Tally } from "../soak/tally.ts";
import type { SectionOptions } from "./types.ts";

const LARGE_BUDGET = 1 << 30;
const OVERSIZED_MIB = 32;
const TREND_MINUTES = 10;

export async function soak(options: SectionOptions): Promise<void> {
  const { minutes, stallSeconds, rssTrendMb, clients } = options.soak;
  const tmp = await tempDir("soak");
  const db = await backend(options.postgres);
  const dataDir = path.join(tmp.dir, "data");
  const node = await startNode(dataDir, db);
  const killOnExit = () => node.child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const stop = new AbortController();
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    process.stdout.write("\ninterrupted: stopping the clients (Ctrl-C again to quit at once)\n");
    stop.abort();
  };
  process.on("SIGINT", onSigint);
  const tally = new Tally();
  node.child.once("exit", (code, signal) => {
    if (stop.signal.aborted) return;
    tally.problem("honest", "node", "the node process exited", `exit code ${code}, signal ${signal}`);
    stop.abort();
  });
  const deadline = Date.now() + minutes * 60_000;
  setTimeout(() => stop.abort(), deadline - Date.now()).unref();
  const stopped = () => stop.signal.aborted;
  const sampler = new Sampler(node.pid, 5000);
  process.stdout.write(
    `soak on ${db.dialect} for ${minutes} min: node pid ${node.pid} at ${node.baseUrl}, ${clients} honest clients; ` +
      `stalled-upload bound ${stallSeconds} s, RSS trend bound ${rssTrendMb} MB per 10 min\n`,
  );
  const started = new Date();
  const stalls = new StalledUploads(node.baseUrl, node.token, ADMIN, stallSeconds, tally);
  const hostile: HostileContext = { baseUrl: node.baseUrl, token: node.token, subject: ADMIN, tally };
  const signingKey = loadOrCreateSigningKey(dataDir).privateKey;
  let oversizedTurn = 0;
  let stallTurn = 0;
  const every = async (seconds: number, task: () => Promise<void>) => {
    while (!stopped()) {
      await task().catch((error: Error) =>
        tally.problem("hostile", "soak", "a hostile client failed", error.stack ?? String(error)),
      );
      await sleep(seconds * 1000, undefined, { signal: stop.signal }).catch(() => undefined);
    }
  };
  const progress = setInterval(() => {
    const minute = Math.round((Date.now() - started.getTime()) / 60_000);
    const maxRss = Math.max(...sampler.samples.map((s) => s.rssMb));
    process.stdout.write(`${progressLine(minute, minutes, tally, sampler.latest(), maxRss)}\n`);
  }, 60_000);
  const largeBudget = { bytes: LARGE_BUDGET };
  const honest = Array.from({ length: clients }, (_, i) =>
    new HonestClient(
      { baseUrl: node.baseUrl, token: node.token, subject: ADMIN, tally, largeBudget, stopped },
      `c${i}`,
    ).run(),
  );
  try {
    await Promise.all([
      ...honest,
      every(15, () => sidRace(node.baseUrl, node.token, ADMIN, tally)),
      every(20, () =>
        oversized(node.baseUrl, oversizedTurn++ % 2 ? "meta" : "generate", OVERSIZED_MIB, tally),
      ),
      every(10, async () => stalls.start(stallTurn++ % 2 === 1)),
      every(5, () => hostileOrigins(hostile)),
      every(10, () => badIdentifiers(hostile)),
      every(10, () => missingBoundary(hostile)),
      every(10, () => tokenWithoutExpiry(hostile, signingKey)),
    ]);
  } finally {
    clearInterval(progress);
    stalls.finish();
    process.off("SIGINT", onSigint);
  }
  const memory = sampler.stop();
  await node.stop();
  process.off("exit", killOnExit);
  await db.dispose();
  await tmp.dispose();

  const ranMinutes = (Date.now() - started.getTime()) / 60_000;
  const trendJudged = ranMinutes >= TREND_MINUTES;
  const p = tally.problems;
  const failures = [
    ...(p.honest.count ? [`${p.honest.count} honest-client errors`] : []),
    ...(p.integrity.count ? [`${p.integrity.count} integrity errors`] : []),
    ...(p.security.count ? [`${p.security.count} security errors`] : []),
    ...(p.hostile.count ? [`${p.hostile.count} hostile answers missing the spec`] : []),
    ...(trendJudged && memory.rssTrendMbPer10Min > rssTrendMb
      ? [`RSS grows ${memory.rssTrendMbPer10Min.toFixed(1)} MB per 10 min (bound ${rssTrendMb})`]
      : []),
    ...(interrupted ? ["interrupted"] : []),
  ];
  const verdict: Verdict = { failures, trendJudged };
  process.stdout.write(finalTable(tally, memory, verdict, stallSeconds, rssTrendMb));
  const file = await writeResult(`soak-${db.dialect}-${started.toISOString().replace(/[:.]/g, "-")}.json`, {
    started: started.toISOString(),
    dialect: db.dialect,
    options: options.soak,
    ranMinutes,
    requests: Object.fromEntries(tally.requests),
    hostileStatuses: Object.fromEntries(
      [...tally.hostileStatuses].map(([k, v]) => [k, Object.fromEntries(v)]),
    ),
    problems: tally.problems,
    problemKinds: Object.fromEntries(tally.problemKinds),
    stallSeconds: tally.stallSeconds,
    stallsOpenAtEnd: tally.stallsOpenAtEnd,
    stallsAbandoned: tally.stallsAbandoned,
    oversizedRefusedEarly: tally.refusedEarly,
    memory,
    samples: sampler.samples,
    verdict,
  });
  process.stdout.write(`soak result: ${file}\n`);
  record({
    section: "soak",
    name: `honest-client errors (${db.dialect})`,
    value: p.honest.count,
    unit: "errors",
    target: "0",
    pass: p.honest.count === 0,
  });
  record({
    section: "soak",
    name: `integrity and security errors (${db.dialect})`,
    value: p.integrity.count + p.security.count,
    unit: "errors",
    target: "0",
    pass: p.integrity.count + p.security.count === 0,
  });
  record({
    section: "soak",
    name: `node RSS trend, second half (${db.dialect})`,
    value: memory.rssTrendMbPer10Min,
    unit: "MB per 10 min",
    target: `<= ${rssTrendMb}`,
    ...(trendJudged ? { pass: memory.rssTrendMbPer10Min <= rssTrendMb } : {}),
    notes: `RSS start ${memory.rssStartMb.toFixed(0)}, max ${memory.rssMaxMb.toFixed(0)}, end ${memory.rssEndMb.toFixed(0)} MB`,
  });
  if (failures.length > 0) throw new Error(`soak failed: ${failures.join("; ")}`);
}
