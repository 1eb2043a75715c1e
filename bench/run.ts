/**
 * `npm run bench [-- SECTION...] [--postgres URL] [--seconds N] [--runs N] [--quiet-wait S]`: the targets, each
 * measured against a baseline taken in the same run. Sections: large, small-create, small-get, list, package,
 * search, federation, replication, store-memory, s3, metrics, import, audit, request-bodies (all by default), and soak (only when named: `npm run bench -- soak
 * [--minutes 30] [--stall-seconds 120] [--rss-trend-mb 10] [--clients 3]`, on PostgreSQL alone with --postgres)
 * and range (only when named: `npm run bench -- range`, a 10 GiB object; BENCH_RANGE_GIB=N for N GiB),
 * scale-out (only when named, with --postgres: 1, 2 and 4 serving processes behind HAProxy on S3),
 * resumable (only when named: `npm run bench -- resumable [--upload-gib 20]`) and scale (only when named,
 * PostgreSQL only: tens of millions of log entries and objects; see sections/ops/scale.ts), search-scale (only
 * when named, PostgreSQL only: the search page on millions of documents; BENCH_SEARCH_SCALE_DOCS, BENCH_SEARCH_SCALE_KEEP=1 to keep
 * the loaded database for the next run, BENCH_SEARCH_SCALE_READ_ONLY=1 for the memory's reads alone), search-memory
 * (only when named: the search page's CPU from the engine's memory alone, no database; BENCH_SEARCH_MEMORY_DOCS,
 * default 1,000,000), search-rebuild
 * (only when named: a full rebuild of BENCH_SEARCH_DOCS documents, with a ping's p99 during it), harvest-many
 * (only when named: 10 Member Nodes harvested at once), log-aggregation (only when named, PostgreSQL only), oai and
 * sitemap (only when named: an OAI-PMH ListIdentifiers walk and the sitemap's index and files over BENCH_WALK_OBJECTS,
 * default 1,000,000, each against the same walk over BENCH_WALK_BASELINE, 10,000; `walks` runs both on one corpus) and
 * usage (only when named: a dataset's 24 months from the usage counts of 50 M log records, against the raw log). Every
 * section starts its own node (replication: a local federation) on a temp data folder (SQLite; with --postgres the
 * DB-bound sections also run on a fresh database on that server). Results go to bench/results/latest.json.
 * Before each section the runner measures how busy the machine is with other work and warns above 15 %;
 * --quiet-wait S waits up to S seconds for that to pass. Needs `wrk` (Debian: apt-get install wrk) and `curl`.
 */
import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import { parseArgs } from "node:util";
import { backgroundLoad } from "./lib/quiet.ts";
import { allFigures, format } from "./lib/report.ts";
import { oai } from "./sections/discovery/oai.ts";
import { bothWalks, sitemap } from "./sections/discovery/sitemap.ts";
import { usage } from "./sections/discovery/usage.ts";
import { federation } from "./sections/federation/federation.ts";
import { harvestMany } from "./sections/federation/harvest-many.ts";
import { logAggregation } from "./sections/federation/log-aggregation.ts";
import { replication } from "./sections/federation/replication.ts";
import { large } from "./sections/objects/large.ts";
import { list } from "./sections/objects/list.ts";
import { packageSection } from "./sections/objects/package.ts";
import { range } from "./sections/objects/range.ts";
import { requestBodies } from "./sections/objects/request-bodies.ts";
import { resumable } from "./sections/objects/resumable.ts";
import { smallCreate } from "./sections/objects/small-create.ts";
import { smallGet } from "./sections/objects/small-get.ts";
import { audit } from "./sections/ops/audit.ts";
import { importSection } from "./sections/ops/import.ts";
import { metrics } from "./sections/ops/metrics.ts";
import { s3 } from "./sections/ops/s3.ts";
import { scale } from "./sections/ops/scale.ts";
import { scaleOut } from "./sections/ops/scale-out.ts";
import { soak } from "./sections/ops/soak.ts";
import { storeMemory } from "./sections/ops/store-memory.ts";
import { search } from "./sections/search/search.ts";
import { searchMemory } from "./sections/search/search-memory.ts";
import { searchRebuild } from "./sections/search/search-rebuild.ts";
import { searchScale } from "./sections/search/search-scale.ts";
import type { Section, SectionOptions } from "./sections/types.ts";

const SECTIONS: Record<string, Section> = {
  large,
  "small-create": smallCreate,
  "small-get": smallGet,
  list,
  search,
  "search-scale": searchScale,
  "search-memory": searchMemory,
  "search-rebuild": searchRebuild,
  package: packageSection,
  replication,
  federation,
  "harvest-many": harvestMany,
  "log-aggregation": logAggregation,
  "store-memory": storeMemory,
  s3,
  metrics,
  import: importSection,
  soak,
  range,
  audit,
  "scale-out": scaleOut,
  resumable,
  scale,
  "request-bodies": requestBodies,
  oai,
  sitemap,
  usage,
  walks: bothWalks,
};
/** Sections run only when named (range writes a 10 GiB object, resumable 20 GiB by default, scale and search-scale millions of rows). */
const ON_REQUEST = new Set([
  "soak",
  "range",
  "scale-out",
  "resumable",
  "scale",
  "search-scale",
  "search-memory",
  "search-rebuild",
  "harvest-many",
  "log-aggregation",
  "oai",
  "sitemap",
  "usage",
  "walks",
]);

/** Tools a section shells out to. */
const NEEDS: Record<string, string[]> = {
  large: ["curl"],
  "small-get": ["wrk"],
  "scale-out": ["wrk", "haproxy", "radosgw"],
};

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    postgres: { type: "string" },
    seconds: { type: "string", default: "5" },
    runs: { type: "string", default: "3" },
    "quiet-wait": { type: "string", default: "0" },
    minutes: { type: "string", default: "30" },
    "stall-seconds": { type: "string", default: "120" },
    "rss-trend-mb": { type: "string", default: "10" },
    clients: { type: "string", default: "3" },
    "upload-gib": { type: "string", default: "20" },
  },
});

const chosen =
  positionals.length > 0 ? positionals : Object.keys(SECTIONS).filter((name) => !ON_REQUEST.has(name));
const unknown = chosen.filter((name) => !SECTIONS[name]);
if (unknown.length > 0) {
  process.stderr.write(
    `Unknown section(s): ${unknown.join(", ")}. Sections: ${Object.keys(SECTIONS).join(", ")}\n`,
  );
  process.exit(2);
}
const missing = [...new Set(chosen.flatMap((name) => NEEDS[name] ?? []))].filter((tool) => !installed(tool));
if (missing.length > 0) {
  process.stderr.write(
    `Missing tool(s): ${missing.join(", ")}. Install them first, e.g. \`apt-get install ${missing.join(" ")}\`, ` +
      "or choose sections that do not need them.\n",
  );
  process.exit(2);
}

const options: SectionOptions = {
  ...(values.postgres ? { postgres: values.postgres } : {}),
  seconds: Number(values.seconds),
  runs: Number(values.runs),
  uploadGiB: positive("upload-gib"),
  soak: {
    minutes: positive("minutes"),
    stallSeconds: positive("stall-seconds"),
    rssTrendMb: positive("rss-trend-mb"),
    clients: positive("clients"),
  },
};
const machine = {
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? "unknown",
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  node: process.version,
  platform: `${os.type()} ${os.release()}`,
};
process.stdout.write(
  `d1node bench: ${chosen.join(", ")} on ${machine.cpus} x ${machine.cpuModel}, ${machine.memoryGiB} GiB, ` +
    `Node ${machine.node}${options.postgres ? ", with PostgreSQL" : ""}\n`,
);
const started = new Date();
const failures: string[] = [];
const background: Record<string, number> = {};
for (const name of chosen) {
  const load = await waitForQuiet(Number(values["quiet-wait"]));
  background[name] = load;
  const busy = load > 0.15 ? ` (warning: other processes use ${Math.round(load * 100)} % of the CPUs)` : "";
  process.stdout.write(`\n== ${name}${busy}\n`);
  try {
    await (SECTIONS[name] as Section)(options);
  } catch (error) {
    failures.push(name);
    process.stderr.write(`section ${name} failed: ${(error as Error).stack ?? error}\n`);
  }
}

const results = new URL("./results/", import.meta.url);
await mkdir(results, { recursive: true });
await writeFile(
  new URL("latest.json", results),
  `${JSON.stringify({ started: started.toISOString(), machine, options, background, failures, figures: allFigures() }, null, 2)}\n`,
);
process.stdout.write(`\n== summary\n${allFigures().map(format).join("\n")}\n`);
process.stdout.write(
  `results: bench/results/latest.json${failures.length ? `; failed: ${failures.join(", ")}` : ""}\n`,
);
process.exit(failures.length > 0 ? 1 : 0);

/** The background load, after waiting up to `seconds` for it to fall below 15 % of the CPUs. */
async function waitForQuiet(seconds: number): Promise<number> {
  const until = Date.now() + seconds * 1000;
  let load = await backgroundLoad();
  while (load > 0.15 && Date.now() < until) load = await backgroundLoad(2000);
  return load;
}

/** A numeric option that must be above zero; one clear line and exit 2 otherwise. */
function positive(name: "minutes" | "stall-seconds" | "rss-trend-mb" | "clients" | "upload-gib"): number {
  const value = Number(values[name]);
  if (!(value > 0)) {
    process.stderr.write(`--${name} must be a number above zero, not "${values[name]}"\n`);
    process.exit(2);
  }
  return value;
}

function installed(tool: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
