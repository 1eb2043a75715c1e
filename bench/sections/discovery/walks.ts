/**
 * The two whole walks a large Member Node serves to machines, over a large corpus, each against the same walk over
 * a small one in the same run (the baseline): OAI-PMH ListIdentifiers, first page to last through resumption
 * tokens, as a harvester does; and the sitemap, its index then every file, as a crawler does.
 *
 * The corpora: BENCH_WALK_OBJECTS (default 1,000,000) public EML objects, and BENCH_WALK_BASELINE (10,000), each
 * on its own node, written by `d1node load` (rows in bulk, beside the API: one to four minutes a million on
 * SQLite). The nodes start with `indexCatchUp` off: neither walk reads the search index, and its catch-up
 * (indexing the loaded objects in the background) would share the CPU with the walk. Sitemap files of
 * BENCH_SITEMAP_FILE_URLS URLs (default 50,000). BENCH_WALK_DIALECTS=sqlite or postgres: one database alone.
 *
 * Both nodes run at once and are walked in turns, a page of the large one then a page of the small one (its walk
 * begun again whenever it ends), each on its own keep-alive connection: on a shared machine both see the same
 * load, so the ratio of a page's time to the baseline's is the corpus's doing.
 *
 * Figures, per dialect: the time of a page at the first, middle and last places of the walk, and the baseline's
 * pages timed beside them; flat = last / first, judged against the baseline's last / first (the machine's drift
 * during the walk shows in both); the ratio per page to the baseline. OAI: the first request also
 * counts the list (completeListSize), so it is reported on its own and the windows of 20 pages start at the
 * second. Sitemap: files in ms per 1,000 URLs (the first, middle and last three full files). The sitemap index counts
 * every listed object, so it grows with the corpus: its time is given beside the baseline's.
 */
import path from "node:path";
import { KeepAliveClient } from "../../lib/clients.ts";
import { loadAverage } from "../../lib/measure/scale-start.ts";
import { type BenchNode, backend, dbFlags, runCli, startNode, tempDir } from "../../lib/node.ts";
import { record } from "../../lib/report.ts";
import { databases, type SectionOptions } from "../types.ts";

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
/** Sitemap files averaged at each place of the walk. */
const FILES_AT_A_PLACE = 3;
/** Pages of each OAI walk run before the timed one. */
const WARM_UP_PAGES = 40;

export interface WalkChoice {
  oai: boolean;
  sitemap: boolean;
}

/** A loaded, started node and its own connection. */
interface Corpus {
  objects: number;
  node: BenchNode;
  client: KeepAliveClient;
  loadSeconds: number;
  dispose(): Promise<void>;
}

export async function walks(options: SectionOptions, choice: WalkChoice): Promise<void> {
  const only = process.env.BENCH_WALK_DIALECTS;
  for (const url of databases(options)) {
    const dialect = url === undefined ? "sqlite" : "postgres";
    if (only && only !== dialect) continue;
    const small = await corpus(url, BASELINE);
    try {
      const large = await corpus(url, OBJECTS);
      try {
        const label = `${OBJECTS.toLocaleString("en-US")} objects against ${BASELINE.toLocaleString("en-US")}, ${dialect}`;
        const setup = `load of ${OBJECTS.toLocaleString("en-US")}: ${large.loadSeconds.toFixed(0)} s`;
        if (choice.oai) await oaiWalks(large, small, label, setup);
        if (choice.sitemap) await sitemapWalks(large, small, label, setup);
      } finally {
        await large.dispose();
      }
    } finally {
      await small.dispose();
    }
  }
}

async function corpus(pgUrl: string | undefined, objects: number): Promise<Corpus> {
  const tmp = await tempDir("walks");
  const db = await backend(pgUrl);
  const dataDir = path.join(tmp.dir, "data");
  const common = ["--data-dir", dataDir, ...dbFlags(db)];
  const loadSeconds = await runCli(["load", "--count", String(objects), "--format-id", FORMAT, ...common]);
  process.stderr.write("\n");
  const node = await startNode(dataDir, db, {
    D1NODE_SITEMAP_FILE_URLS: String(FILE_URLS),
    D1NODE_INDEX_CATCH_UP: "false",
  });
  const client = new KeepAliveClient();
  return {
    objects,
    node,
    client,
    loadSeconds,
    async dispose() {
      client.close();
      await node.stop();
      await db.dispose();
      await tmp.dispose();
    },
  };
}

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** A place of the walk: the large corpus's time there and the baseline's beside it. */
interface Beside {
  large: number;
  small: number;
}

/** How a walk's two verdicts are named. */
interface WalkNames {
  section: string;
  /** The flatness figure (last place / first), its baseline's name and its notes. */
  flat: string;
  baseline: string;
  notes: string;
  /** The figure of each place against the baseline's, and what one step of the walk is ("a page"). */
  ratios: string;
  step: string;
}

/**
 * Records a walk's two verdicts from its first, middle and last places: flat (last / first, judged against the
 * baseline's last / first) and each place against the baseline's beside it.
 */
function recordWalk(places: readonly [Beside, Beside, Beside], names: WalkNames): void {
  const [first, , last] = places;
  const flat = last.large / first.large;
  const drift = last.small / first.small;
  record({
    section: names.section,
    name: names.flat,
    value: flat,
    unit: "x",
    baseline: { name: names.baseline, value: drift, unit: "x" },
    // The machine's own drift during the walk shows in the baseline beside it: flat is judged against that.
    ratio: flat / drift,
    target: "flat: last / first within 1.25 of the baseline's",
    pass: flat / drift <= 1.25,
    notes: names.notes,
  });
  const ratios = places.map((p) => p.large / p.small);
  record({
    section: names.section,
    name: names.ratios,
    value: median(ratios),
    unit: "x",
    ratio: median(ratios),
    runs: ratios,
    target: `${names.step} costs what it does on a small node (<= 1.5)`,
    pass: Math.max(...ratios) <= 1.5,
  });
}

/** A ListIdentifiers walk, page by page; after its last page the next call starts it again. */
class OaiWalker {
  private token: string | undefined;
  constructor(private readonly corpus: Corpus) {}

  /** Fetches the next page: its time, whether it began the list, whether the list goes on. */
  async next(): Promise<{ ms: number; first: boolean; more: boolean }> {
    const first = this.token === undefined;
    const query = first
      ? "metadataPrefix=oai_dc"
      : `resumptionToken=${encodeURIComponent(this.token as string)}`;
    const { body, ms } = await this.corpus.client.ok(
      `${this.corpus.node.baseUrl}/oai?verb=ListIdentifiers&${query}`,
    );
    this.token = /<resumptionToken[^>]*>([^<]+)<\/resumptionToken>/.exec(body.toString())?.[1];
    return { ms, first, more: this.token !== undefined };
  }
}

async function oaiWalks(large: Corpus, small: Corpus, label: string, setup: string): Promise<void> {
  for (const corpus of [large, small]) {
    const warm = new OaiWalker(corpus);
    for (let i = 0; i < WARM_UP_PAGES && (await warm.next()).more; i++);
  }
  const big = new OaiWalker(large);
  const little = new OaiWalker(small);
  /** Per turn: the large walk's page and the small walk's page beside it. */
  const turns: { large: number; small: number; smallFirst: boolean }[] = [];
  let firstRequest = 0;
  const smallFirsts: number[] = [];
  const started = performance.now();
  for (;;) {
    const page = await big.next();
    const beside = await little.next();
    if (beside.first) smallFirsts.push(beside.ms);
    if (page.first) firstRequest = page.ms;
    else turns.push({ large: page.ms, small: beside.ms, smallFirst: beside.first });
    if (!page.more) break;
  }
  const walkSeconds = (performance.now() - started) / 1000;
  const windows = {
    first: turns.slice(0, WINDOW),
    middle: turns.slice(Math.max(0, Math.floor(turns.length / 2 - WINDOW / 2))).slice(0, WINDOW),
    last: turns.slice(-WINDOW),
  };
  const at = (window: typeof turns): Beside => ({
    large: mean(window.map((t) => t.large)),
    small: mean(window.filter((t) => !t.smallFirst).map((t) => t.small)),
  });
  const [first, middle, last] = [at(windows.first), at(windows.middle), at(windows.last)];
  const pages = turns.length + 1;
  recordWalk([first, middle, last], {
    section: "oai",
    flat: `ListIdentifiers walk, ms a page: last ${WINDOW} pages / pages 2-${WINDOW + 1} (${label})`,
    baseline: "the small walk's pages beside them",
    notes:
      `${pages} pages; ms a page first / middle / last: ${first.large.toFixed(2)} / ${middle.large.toFixed(2)} / ` +
      `${last.large.toFixed(2)} (baseline beside them ${first.small.toFixed(2)} / ${middle.small.toFixed(2)} / ` +
      `${last.small.toFixed(2)}); walk ${walkSeconds.toFixed(1)} s with the baseline's turns; ${setup}; ${loadAverage()}`,
    ratios: `ListIdentifiers, a page against the baseline's page at the same turn: first, middle, last (${label})`,
    step: "a page",
  });
  record({
    section: "oai",
    name: `ListIdentifiers first request, counting the list (completeListSize) (${label})`,
    value: firstRequest,
    unit: "ms",
    baseline: { name: "the small list's first requests", value: mean(smallFirsts), unit: "ms" },
    ratio: firstRequest / mean(smallFirsts),
  });
}

async function sitemapWalks(large: Corpus, small: Corpus, label: string, setup: string): Promise<void> {
  const origin = (corpus: Corpus) => new URL(corpus.node.baseUrl).origin;
  const fileUrls = (body: Buffer) =>
    [...body.toString("utf8").matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) =>
      (m[1] as string).replace(/&amp;/g, "&"),
    );
  const indexMs = { large: [] as number[], small: [] as number[] };
  let largeFiles: string[] = [];
  let smallFiles: string[] = [];
  // The indexes, three times each in turns (the first also warms both nodes up).
  for (let i = 0; i < 3; i++) {
    const big = await large.client.ok(`${origin(large)}/sitemap.xml`);
    const little = await small.client.ok(`${origin(small)}/sitemap.xml`);
    indexMs.large.push(big.ms);
    indexMs.small.push(little.ms);
    largeFiles = fileUrls(big.body);
    smallFiles = fileUrls(little.body);
  }
  const perThousand = async (corpus: Corpus, url: string) => {
    const { body, ms } = await corpus.client.ok(url);
    const count = body.toString("utf8").split("<url>").length - 1;
    return { count, perThousand: (ms / count) * 1000 };
  };
  await perThousand(small, smallFiles[0] as string);
  const turns: { large: number; small: number }[] = [];
  let urls = 0;
  const started = performance.now();
  for (const [i, file] of largeFiles.entries()) {
    const big = await perThousand(large, file);
    const little = await perThousand(small, smallFiles[i % smallFiles.length] as string);
    urls += big.count;
    // Full files only: a short last file's time is mostly the request's own.
    if (big.count >= FILE_URLS - 1) turns.push({ large: big.perThousand, small: little.perThousand });
  }
  const walkSeconds = (performance.now() - started) / 1000;
  // Three full files at each place (one file is one request: too few to tell a trend from the machine's noise).
  const around = (start: number) => turns.slice(Math.max(0, start), Math.max(0, start) + FILES_AT_A_PLACE);
  const at = (window: typeof turns): Beside => ({
    large: mean(window.map((t) => t.large)),
    small: mean(window.map((t) => t.small)),
  });
  const [first, middle, last] = [
    at(around(0)),
    at(around(Math.floor(turns.length / 2 - FILES_AT_A_PLACE / 2))),
    at(around(turns.length - FILES_AT_A_PLACE)),
  ];
  recordWalk([first, middle, last], {
    section: "sitemap",
    flat: `sitemap files, ms per 1,000 URLs: last 3 full files / first 3 (${label}, files of ${FILE_URLS.toLocaleString("en-US")})`,
    baseline: "the small sitemap's file beside them",
    notes:
      `${largeFiles.length} files, ${urls} URLs; ms per 1,000 URLs first / middle / last: ${first.large.toFixed(1)} / ` +
      `${middle.large.toFixed(1)} / ${last.large.toFixed(1)} (baseline beside them ${first.small.toFixed(1)} / ` +
      `${middle.small.toFixed(1)} / ${last.small.toFixed(1)}); walk ${walkSeconds.toFixed(1)} s with the baseline's turns; ${setup}; ${loadAverage()}`,
    ratios: `sitemap file, a URL against the baseline's at the same turn: first, middle, last (${label})`,
    step: "a URL",
  });
  const [big, little] = [median(indexMs.large), median(indexMs.small)];
  record({
    section: "sitemap",
    name: `sitemap index of ${largeFiles.length} files (${label})`,
    value: big,
    unit: "ms",
    baseline: { name: `the index of ${smallFiles.length} file(s)`, value: little, unit: "ms" },
    ratio: big / little,
    notes: `${((big * 1000) / large.objects).toFixed(2)} µs per listed object (baseline ${((little * 1000) / small.objects).toFixed(2)})`,
  });
}
