/**
 * soak: a node under honest load with hostile clients mixed in, for `--minutes` (default 30), on SQLite or, with
 * --postgres, on a fresh PostgreSQL database. Honest clients must see no error; hostile clients must get the
 * answers the spec gives them, and never more than one winner of a seriesId or a credentialed CORS answer; the
 * node's RSS must stay flat (trend over the second half within --rss-trend-mb per 10 minutes, judged on runs of
 * 10 minutes or more). Fails (the runner exits 1) otherwise. Ctrl-C ends it early, with its report; the node is
 * stopped however the soak ends.
 */
import path from "node:path";
import { loadOrCreateSigningKey } from "../../../src/auth/keys.ts";
import { ADMIN, type BenchNode, backend, startNode, tempDir } from "../../lib/node.ts";
import { record } from "../../lib/report.ts";
import { drive } from "../../soak/drive.ts";
import { type MemoryFigures, type Sample, Sampler } from "../../soak/memory.ts";
import { finalTable, progressLine, type Verdict, writeResult } from "../../soak/report.ts";
import { Tally } from "../../soak/tally.ts";
import type { SectionOptions, SoakOptions } from "../types.ts";

const TREND_MINUTES = 10;

export async function soak(options: SectionOptions): Promise<void> {
  const settings = options.soak;
  const stop = new AbortController();
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    process.stdout.write("\ninterrupted: stopping the clients (Ctrl-C again to quit at once)\n");
    stop.abort();
  };
  let node: BenchNode | undefined;
  const killOnExit = () => node?.child.kill("SIGKILL");
  process.on("SIGINT", onSigint);
  process.on("exit", killOnExit);
  const tmp = await tempDir("soak");
  const db = await backend(options.postgres);
  try {
    const dataDir = path.join(tmp.dir, "data");
    node = await startNode(dataDir, db);
    if (stop.signal.aborted) throw new Error("soak interrupted while the node started");
    const tally = new Tally();
    const started = new Date();
    const memory = await soakNode(node, dataDir, db.dialect, settings, tally, stop);
    const ranMinutes = (Date.now() - started.getTime()) / 60_000;
    const verdict = judge(tally, memory, settings, ranMinutes, interrupted);
    process.stdout.write(finalTable(tally, memory, verdict, settings.stallSeconds, settings.rssTrendMb));
    const file = await writeResult(`soak-${db.dialect}-${started.toISOString().replace(/[:.]/g, "-")}.json`, {
      started: started.toISOString(),
      dialect: db.dialect,
      options: settings,
      ranMinutes,
      requests: Object.fromEntries(tally.requests),
      hostileStatuses: Object.fromEntries(
        [...tally.hostileStatuses].map(([k, v]) => [k, Object.fromEntries(v)]),
      ),
      problems: tally.problems,
      problemKinds: Object.fromEntries(tally.problemKinds),
      distinctProblems: Object.fromEntries(tally.distinctProblems),
      stallSeconds: tally.stallSeconds,
      stallsOpenAtEnd: tally.stallsOpenAtEnd,
      stallsAbandoned: tally.stallsAbandoned,
      oversizedRefusedEarly: tally.refusedEarly,
      memory,
      verdict,
    });
    process.stdout.write(`soak result: ${file}\n`);
    recordFigures(tally, memory, db.dialect, settings, verdict);
    if (verdict.failures.length > 0) throw new Error(`soak failed: ${verdict.failures.join("; ")}`);
  } finally {
    process.off("SIGINT", onSigint);
    await node?.stop();
    process.off("exit", killOnExit);
    await db.dispose();
    await tmp.dispose();
  }
}

/** Drive the node for the set minutes (or until interrupted), sampling its memory and printing a line a minute. */
async function soakNode(
  node: BenchNode,
  dataDir: string,
  dialect: string,
  settings: SoakOptions,
  tally: Tally,
  stop: AbortController,
): Promise<MemoryFigures & { samples: Sample[] }> {
  const { minutes, stallSeconds, rssTrendMb, clients } = settings;
  const onExit = (code: number | null, signal: string | null) => {
    if (stop.signal.aborted) return;
    tally.problem("honest", "node", "the node process exited", `exit code ${code}, signal ${signal}`);
    stop.abort();
  };
  node.child.once("exit", onExit);
  const deadline = setTimeout(() => stop.abort(), minutes * 60_000);
  const sampler = new Sampler(node.pid, 5000);
  const started = Date.now();
  const progress = setInterval(() => {
    const minute = Math.round((Date.now() - started) / 60_000);
    const maxRss = Math.max(...sampler.samples.map((s) => s.rssMb));
    process.stdout.write(`${progressLine(minute, minutes, tally, sampler.latest(), maxRss)}\n`);
  }, 60_000);
  process.stdout.write(
    `soak on ${dialect} for ${minutes} min: node pid ${node.pid} at ${node.baseUrl}, ${clients} honest clients; ` +
      `stalled-upload bound ${stallSeconds} s, RSS trend bound ${rssTrendMb} MB per 10 min\n`,
  );
  try {
    const signingKey = loadOrCreateSigningKey(dataDir).privateKey;
    const base = { baseUrl: node.baseUrl, token: node.token, subject: ADMIN, signingKey };
    await drive({ ...base, clients, stallSeconds, tally, stop: stop.signal });
  } finally {
    clearTimeout(deadline);
    clearInterval(progress);
    node.child.off("exit", onExit);
  }
  return { ...sampler.stop(), samples: sampler.samples };
}

function judge(
  tally: Tally,
  memory: MemoryFigures,
  s: SoakOptions,
  ranMinutes: number,
  interrupted: boolean,
): Verdict {
  const trendJudged = ranMinutes >= TREND_MINUTES;
  const p = tally.problems;
  const failures = [
    ...(p.honest.count ? [`${p.honest.count} honest-client errors`] : []),
    ...(p.integrity.count ? [`${p.integrity.count} integrity errors`] : []),
    ...(p.security.count ? [`${p.security.count} security errors`] : []),
    ...(p.hostile.count ? [`${p.hostile.count} hostile answers missing the spec`] : []),
    ...(trendJudged && memory.rssTrendMbPer10Min > s.rssTrendMb
      ? [`RSS grows ${memory.rssTrendMbPer10Min.toFixed(1)} MB per 10 min (bound ${s.rssTrendMb})`]
      : []),
    ...(interrupted ? ["interrupted"] : []),
  ];
  return { failures, trendJudged };
}

function recordFigures(
  tally: Tally,
  memory: MemoryFigures,
  dialect: string,
  s: SoakOptions,
  verdict: Verdict,
): void {
  const p = tally.problems;
  const errors = (n: number, name: string) =>
    record({
      section: "soak",
      name: `${name} (${dialect})`,
      value: n,
      unit: "errors",
      target: "0",
      pass: n === 0,
    });
  errors(p.honest.count, "honest-client errors");
  errors(p.integrity.count + p.security.count, "integrity and security errors");
  errors(p.hostile.count, "hostile answers missing the spec");
  record({
    section: "soak",
    name: `node RSS trend, second half (${dialect})`,
    value: memory.rssTrendMbPer10Min,
    unit: "MB per 10 min",
    target: `<= ${s.rssTrendMb}`,
    ...(verdict.trendJudged ? { pass: memory.rssTrendMbPer10Min <= s.rssTrendMb } : {}),
    notes: `RSS start ${memory.rssStartMb.toFixed(0)}, max ${memory.rssMaxMb.toFixed(0)}, end ${memory.rssEndMb.toFixed(0)} MB`,
  });
}
