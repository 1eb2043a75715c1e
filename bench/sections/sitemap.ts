/**
 * sitemap: /sitemap.xml over a node holding BENCH_SITEMAP_OBJECTS public metadata objects (default 1,000,000,
 * made by `d1node load`), files of BENCH_SITEMAP_FILE_URLS URLs (default 50,000): the index, then every file
 * first to last, each timed, on one keep-alive connection. Target: flat, the last file's URLs/s at least 0.8 of
 * the first's (keyset paging: a file deep in the pid order costs what the first does). Baseline, in the same run:
 * a listObjects walk of the same objects in pages of 1000 (objects/s), the other full walk the node serves.
 */
import path from "node:path";
import { KeepAliveClient } from "../lib/clients.ts";
import { backend, dbFlags, runCli, startNode, tempDir } from "../lib/node.ts";
import { record } from "../lib/report.ts";
import { databases, type SectionOptions } from "./types.ts";

const OBJECTS = Number(process.env.BENCH_SITEMAP_OBJECTS ?? 1_000_000);
const FILE_URLS = Number(process.env.BENCH_SITEMAP_FILE_URLS ?? 50_000);
const FORMAT = "eml://ecoinformatics.org/eml-2.1.1";
const PAGE = 1000;

export async function sitemap(options: SectionOptions): Promise<void> {
  for (const url of databases(options)) await onBackend(url);
}

async function onBackend(pgUrl: string | undefined): Promise<void> {
  const tmp = await tempDir("sitemap");
  const db = await backend(pgUrl);
  const dataDir = path.join(tmp.dir, "data");
  try {
    await runCli([
      "load",
      "--count",
      String(OBJECTS),
      "--format-id",
      FORMAT,
      "--data-dir",
      dataDir,
      ...dbFlags(db),
    ]);
    process.stderr.write("\n");
    const node = await startNode(dataDir, db, { D1NODE_SITEMAP_FILE_URLS: String(FILE_URLS) });
    const client = new KeepAliveClient();
    const label = `${OBJECTS.toLocaleString("en-US")} objects, files of ${FILE_URLS.toLocaleString("en-US")}, ${db.dialect}`;
    try {
      const origin = new URL(node.baseUrl).origin;
      const index = await client.ok(`${origin}/sitemap.xml`);
      const files = [...index.body.toString("utf8").matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) =>
        (m[1] as string).replace(/&amp;/g, "&"),
      );
      record({
        section: "sitemap",
        name: `index of ${files.length} files (${label})`,
        value: index.ms,
        unit: "ms",
      });
      const rates: number[] = [];
      /** Rates of the full files: a short last file's time is mostly the request's own. */
      const full: number[] = [];
      let urls = 0;
      const walk = Date.now();
      for (const file of files) {
        const { body, ms } = await client.ok(file);
        const count = body.toString("utf8").split("<url>").length - 1;
        urls += count;
        rates.push(count / (ms / 1000));
        if (count >= FILE_URLS - 1) full.push(count / (ms / 1000));
      }
      const walkRate = urls / ((Date.now() - walk) / 1000);
      const baseline = await listObjectsRate(client, node.baseUrl, urls);
      record({
        section: "sitemap",
        name: `every file, first to last (${label})`,
        value: walkRate,
        unit: "URLs/s",
        baseline: {
          name: "listObjects walk of as many objects, pages of 1000",
          value: baseline,
          unit: "objects/s",
        },
        ratio: walkRate / baseline,
        runs: rates,
      });
      const flat = (full.at(-1) ?? 0) / (full[0] ?? 1);
      record({
        section: "sitemap",
        name: `flatness: last full file / first file (${label})`,
        value: flat,
        unit: "x",
        target: "flat (>= 0.8)",
        pass: flat >= 0.8,
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

/** Objects per second of a start/count listObjects walk over `objects` objects (as public, as the sitemap reads). */
async function listObjectsRate(client: KeepAliveClient, baseUrl: string, objects: number): Promise<number> {
  const started = Date.now();
  for (let start = 0; start < objects; start += PAGE) {
    await client.ok(`${baseUrl}/v2/object?start=${start}&count=${Math.min(PAGE, objects - start)}`);
  }
  return objects / ((Date.now() - started) / 1000);
}
