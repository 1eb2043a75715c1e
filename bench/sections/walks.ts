/**
 * The two whole walks a large Member Node serves to machines, each over a large corpus against the same walk over a
 * small one in the same run (the baseline): OAI-PMH ListIdentifiers, first page to last through resumption
 * tokens, as a harvester does; and the sitemap, its index then every file, as a crawler does. Both on one
 * keep-alive connection.
 *
 * The corpus: BENCH_WALK_OBJECTS (default 1,000,000) public EML objects, and BENCH_WALK_BASELINE (10,000) for the
 * baseline, written by `d1node load` (rows in bulk, beside the API: about a minute a million on SQLite). The node
 * starts with `indexCatchUp` off: neither walk reads the search index, and its catch-up (indexing the loaded
 * objects in the background) would share the CPU with the walk. Sitemap files of BENCH_SITEMAP_FILE_URLS URLs
 * (default 50,000).
 *
 * Figures, per dialect: the time of a page at the first, middle and last pages (OAI: the first request also
 * counts the list, completeListSize, so it is reported on its own and the windows of 20 pages start at the
 * second; sitemap: files, in ms per 1,000 URLs, the last full file against the first), flat = last / first;
 * each against the baseline's page (ratio per page: near 1 when a page costs the same whatever the corpus).
 * The sitemap index, whose runs are counted over every listed object, grows with the corpus: its time is given
 * with the baseline's.
 */
import path from "node:path";
import { KeepAliveClient } from "../lib/clients.ts";
import { type BenchNode, backend, dbFlags, runCli, startNode, tempDir } from "../lib/node.ts";
import { record } from "../lib/report.ts";
import { loadAverage } from "../lib/scale-start.ts";
import { databases, type SectionOptions } from "./types.ts";

const OBJECTS = Number(
  process.env.BENCH_WALK_OBJECTS ??
    process.env.BENCH_OAI_OBJECTS ??
    process.env.BENCH_SITEMAP_OBJECTS ??
    1_000_000,
);
const BASELINE = Number(process.env.BENCH_WALK_BASELINE ?? 10_000);
const FILE_URLS = Number(process.env.BENCH_SITEMAP_FILE_URLS ?? 50_000);
const FORMAT = "eml://ecoinformatics.org/eml-2.1.1";
/** Pages averaged at each place of the OAI walk. */
const WINDOW = 20;
/** Pages of the OAI walk run before it is timed. */
const WARM_UP_PAGES = 40;

export interface WalkChoice {
  oai: boolean;
  sitemap: boolean;
}

export async function walks(options: SectionOptions, choice: WalkChoice): Promise<void> {
  for (const url of databases(options)) {
    const baseline = await onCorpus(url, BASELINE, choice);
    const full = await onCorpus(url, OBJECTS, choice);
    report(full, baseline, choice);
  }
}

interface OaiWalk {
  pages: number;
  /** The first request (counts the list), ms. */
  first: number;
  /** Mean ms a page over the first, middle and last windows after it. */
  early: number;
  middle: number;
  late: number;
  total: number;
}

interface SitemapWalk {
  files: number;
  indexMs: number;
  /** ms per 1,000 URLs: the first, middle and last full files (the only file, in a small corpus). */
  first: number;
  middle: number;
  late: number;
  urls: number;
  total: number;
}

interface CorpusRun {
  objects: number;
  dialect: string;
  loadSeconds: number;
  oai?: OaiWalk;
  sitemap?: SitemapWalk;
  load: string;
}

async function onCorpus(pgUrl: string | undefined, objects: number, choice: WalkChoice): Promise<CorpusRun> {
  const tmp = await tempDir("walks");
  const db = await backend(pgUrl);
  const dataDir = path.join(tmp.dir, "data");
  try {
    const common = ["--data-dir", dataDir, ...dbFlags(db)];
    const loadSeconds = await runCli(["load", "--count", String(objects), "--format-id", FORMAT, ...common]);
    process.stderr.write("\n");
    const node = await startNode(dataDir, db, {
      D1NODE_SITEMAP_FILE_URLS: String(FILE_URLS),
      D1NODE_INDEX_CATCH_UP: "false",
    });
    const client = new KeepAliveClient();
    try {
      await warmUp(client, node, choice);
      return {
        objects,
        dialect: db.dialect,
        loadSeconds,
        ...(choice.oai ? { oai: await oaiWalk(client, node) } : {}),
        ...(choice.sitemap ? { sitemap: await sitemapWalk(client, node) } : {}),
        load: loadAverage(),
      };
    } finally {
      client.close();
      await node.stop();
    }
  } finally {
    await db.dispose();
    await tmp.dispose();
  }
}

/**
 * What the walks run, once before they are timed (a fresh process compiles its code as the first requests come:
 * the small corpus's whole walk would be timed cold).
 */
async function warmUp(client: KeepAliveClient, node: BenchNode, choice: WalkChoice): Promise<void> {
  if (choice.oai) await oaiWalk(client, node, WARM_UP_PAGES);
  if (choice.sitemap) {
    const origin = new URL(node.baseUrl).origin;
    await client.ok(`${origin}/sitemap.xml`);
    await client.ok(`${origin}/sitemaps/objects.xml`);
  }
}

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

/** The values around the middle of `values`, `size` of them. */
function aroundMiddle(values: readonly number[], size: number): number[] {
  const start = Math.max(0, Math.floor(values.length / 2 - size / 2));
  return values.slice(start, start + size);
}

async function oaiWalk(
  client: KeepAliveClient,
  node: BenchNode,
  limit = Number.POSITIVE_INFINITY,
): Promise<OaiWalk> {
  const times: number[] = [];
  let token: string | undefined;
  do {
    const query = token ? `resumptionToken=${encodeURIComponent(token)}` : "metadataPrefix=oai_dc";
    const { body, ms } = await client.ok(`${node.baseUrl}/oai?verb=ListIdentifiers&${query}`);
    times.push(ms);
    token = /<resumptionToken[^>]*>([^<]+)<\/resumptionToken>/.exec(body.toString())?.[1];
  } while (token !== undefined && times.length < limit);
  const rest = times.slice(1);
  return {
    pages: times.length,
    first: times[0] ?? 0,
    early: mean(rest.slice(0, WINDOW)),
    middle: mean(aroundMiddle(rest, WINDOW)),
    late: mean(rest.slice(-WINDOW)),
    total: times.reduce((a, b) => a + b, 0),
  };
}

async function sitemapWalk(client: KeepAliveClient, node: BenchNode): Promise<SitemapWalk> {
  const origin = new URL(node.baseUrl).origin;
  const index = await client.ok(`${origin}/sitemap.xml`);
  const files = [...index.body.toString("utf8").matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) =>
    (m[1] as string).replace(/&amp;/g, "&"),
  );
  /** ms per 1,000 URLs of the full files (a short last file's time is mostly the request's own). */
  const full: number[] = [];
  let only = 0;
  let urls = 0;
  const started = performance.now();
  for (const file of files) {
    const { body, ms } = await client.ok(file);
    const count = body.toString("utf8").split("<url>").length - 1;
    urls += count;
    only = (ms / count) * 1000;
    if (count >= FILE_URLS - 1) full.push((ms / count) * 1000);
  }
  const perFile = full.length > 0 ? full : [only];
  return {
    files: files.length,
    indexMs: index.ms,
    first: perFile[0] ?? 0,
    middle: perFile[Math.floor((perFile.length - 1) / 2)] ?? 0,
    late: perFile.at(-1) ?? 0,
    urls,
    total: performance.now() - started,
  };
}

function report(full: CorpusRun, baseline: CorpusRun, choice: WalkChoice): void {
  const label = `${full.objects.toLocaleString("en-US")} objects, ${full.dialect}`;
  const base = `${baseline.objects.toLocaleString("en-US")} objects`;
  const setup = `load ${full.loadSeconds.toFixed(0)} s; ${full.load}`;
  if (choice.oai && full.oai && baseline.oai) {
    const [f, b] = [full.oai, baseline.oai];
    const flat = f.late / f.early;
    record({
      section: "oai",
      name: `ListIdentifiers walk, ms a page: pages 2-${WINDOW + 1}, middle, last ${WINDOW}; flat = last / first (${label})`,
      value: flat,
      unit: "x",
      baseline: { name: `the same walk over ${base}, last / first`, value: b.late / b.early, unit: "x" },
      target: "flat (<= 1.25)",
      pass: flat <= 1.25,
      notes: `${f.pages} pages: ${f.early.toFixed(2)} / ${f.middle.toFixed(2)} / ${f.late.toFixed(2)} ms (baseline ${b.pages} pages: ${b.early.toFixed(2)} / ${b.middle.toFixed(2)} / ${b.late.toFixed(2)} ms); ${setup}`,
    });
    record({
      section: "oai",
      name: `ListIdentifiers, ms a page over the middle ${WINDOW} (${label})`,
      value: f.middle,
      unit: "ms",
      baseline: { name: `the middle pages over ${base}`, value: b.middle, unit: "ms" },
      ratio: f.middle / b.middle,
      target: "a page costs what it does on a small node (ratio <= 1.5)",
      pass: f.middle / b.middle <= 1.5,
      notes: `whole walk ${(f.total / 1000).toFixed(1)} s, ${((f.pages / f.total) * 1000).toFixed(0)} pages/s`,
    });
    record({
      section: "oai",
      name: `ListIdentifiers first request, counting the list (completeListSize) (${label})`,
      value: f.first,
      unit: "ms",
      baseline: { name: `the first request over ${base}`, value: b.first, unit: "ms" },
      ratio: f.first / b.first,
    });
  }
  if (choice.sitemap && full.sitemap && baseline.sitemap) {
    const [f, b] = [full.sitemap, baseline.sitemap];
    const flat = f.late / f.first;
    record({
      section: "sitemap",
      name: `sitemap files, ms per 1,000 URLs: first, middle, last full file; flat = last / first (${label}, files of ${FILE_URLS.toLocaleString("en-US")})`,
      value: flat,
      unit: "x",
      target: "flat (<= 1.25)",
      pass: flat <= 1.25,
      notes: `${f.files} files: ${f.first.toFixed(1)} / ${f.middle.toFixed(1)} / ${f.late.toFixed(1)} ms per 1,000 URLs; ${f.urls} URLs in ${(f.total / 1000).toFixed(1)} s; ${setup}`,
    });
    record({
      section: "sitemap",
      name: `sitemap file, ms per 1,000 URLs at the middle file (${label})`,
      value: f.middle,
      unit: "ms",
      baseline: { name: `the file over ${base}`, value: b.middle, unit: "ms" },
      ratio: f.middle / b.middle,
      target: "a file's URL costs what it does on a small node (ratio <= 1.5)",
      pass: f.middle / b.middle <= 1.5,
    });
    record({
      section: "sitemap",
      name: `sitemap index of ${f.files} files (${label})`,
      value: f.indexMs,
      unit: "ms",
      baseline: { name: `the index over ${base}`, value: b.indexMs, unit: "ms" },
      ratio: f.indexMs / b.indexMs,
      notes: `${((f.indexMs * 1000) / full.objects).toFixed(2)} µs per listed object (baseline ${((b.indexMs * 1000) / baseline.objects).toFixed(2)})`,
    });
  }
}
