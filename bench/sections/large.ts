/**
 * large: a 1 GiB object over loopback.
 *   create (curl -F, sysmeta part first) vs the one-thread read -> MD5+SHA-1+SHA-256 -> write+fsync pipeline on
 *   the same bytes: target >= 90 %; the server's peak RSS during the upload: target < 150 MB;
 *   get to /dev/null (curl): target >= 1 GiB/s;
 *   getChecksum of the 1 GiB object vs a 1 KiB object (median latency): constant time, ratio ~1.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { createLoad, curl, KeepAliveClient } from "../lib/clients.ts";
import { sysmetaXml } from "../lib/multipart.ts";
import { backend, startNode, tempDir } from "../lib/node.ts";
import { median, rssOf, sampleRss } from "../lib/processes.ts";
import { record } from "../lib/report.ts";
import { generateFile, oneThreadPipeline } from "../store-pipeline.ts";
import type { SectionOptions } from "./types.ts";

const run = promisify(execFile);
const MIB = 1 << 20;
const GIB = 1 << 30;
const CHECKSUM_CALLS = 200;

export async function large(options: SectionOptions): Promise<void> {
  const tmp = await tempDir("large");
  const db = await backend(undefined);
  const node = await startNode(path.join(tmp.dir, "data"), db);
  try {
    const src = path.join(tmp.dir, "source.bin");
    await generateFile(src, GIB / MIB);
    const sha1 = await fileSha1(src);
    const uploads: number[] = [];
    const baselines: number[] = [];
    let peakRss = 0;
    const idleRss = rssOf(node.pid);
    let pid = "";
    for (let i = 0; i < options.runs; i++) {
      await settle();
      const dst = path.join(tmp.dir, "baseline.bin");
      const base = await oneThreadPipeline(src, dst);
      await rm(dst);
      baselines.push(base.bytes / base.seconds);
      await settle();
      pid = `large-${i}`;
      const sysmeta = path.join(tmp.dir, `sysmeta-${i}.xml`);
      await writeFile(sysmeta, sysmetaXml({ pid, size: GIB, sha1, formatId: "application/octet-stream" }));
      const rss = sampleRss(node.pid, 20);
      const w = await curl(
        [
          ...["-o", path.join(tmp.dir, "create.xml"), "-H", "Expect:"],
          ...["-H", `Authorization: Bearer ${node.token}`],
          ...["-F", `pid=${pid}`, "-F", `sysmeta=@${sysmeta};type=text/xml`],
          ...["-F", `object=@${src};type=application/octet-stream`],
          `${node.baseUrl}/v2/object`,
        ],
        ["http_code", "time_total", "size_upload"],
      );
      peakRss = Math.max(peakRss, rss.stop());
      uploads.push(Number(w.size_upload) / Number(w.time_total));
    }
    const upload = median(uploads);
    const baseline = median(baselines);
    record({
      section: "large",
      name: "create 1 GiB (curl -F, sysmeta first)",
      value: upload / MIB,
      unit: "MiB/s",
      baseline: { name: "one-thread read+3 hashes+write+fsync", value: baseline / MIB, unit: "MiB/s" },
      ratio: upload / baseline,
      target: ">= 0.90 of the one-thread pipeline",
      pass: upload / baseline >= 0.9,
      runs: uploads.map((u) => u / MIB),
    });
    record({
      section: "large",
      name: "server peak RSS during 1 GiB creates",
      value: peakRss / 1e6,
      unit: "MB",
      baseline: { name: "the same server idle before them", value: idleRss / 1e6, unit: "MB" },
      target: "< 150 MB",
      pass: peakRss < 150e6,
      notes: `growth during the uploads: ${((peakRss - idleRss) / 1e6).toFixed(0)} MB`,
    });

    // Gets after the uploads' write-back is done, one unmeasured first (JIT, page cache).
    await settle();
    await curl(["-o", "/dev/null", `${node.baseUrl}/v2/object/${pid}`], ["http_code"]);
    const gets: number[] = [];
    for (let i = 0; i < options.runs; i++) {
      const w = await curl(
        ["-o", "/dev/null", `${node.baseUrl}/v2/object/${pid}`],
        ["http_code", "speed_download", "size_download"],
      );
      if (Number(w.size_download) !== GIB) throw new Error(`get returned ${w.size_download} bytes`);
      gets.push(Number(w.speed_download));
    }
    const get = median(gets);
    record({
      section: "large",
      name: "get 1 GiB to /dev/null (curl)",
      value: get / GIB,
      unit: "GiB/s",
      target: ">= 1 GiB/s",
      pass: get >= GIB,
      runs: gets.map((g) => g / GIB),
    });

    await createLoad({
      baseUrl: node.baseUrl,
      token: node.token,
      count: 1,
      concurrency: 1,
      prefix: "small-",
    });
    const client = new KeepAliveClient();
    try {
      const [big = Number.NaN, small = Number.NaN] = await latencies(client, [
        `${node.baseUrl}/v2/checksum/${pid}`,
        `${node.baseUrl}/v2/checksum/small-0`,
      ]);
      record({
        section: "large",
        name: `getChecksum 1 GiB object, median of ${CHECKSUM_CALLS}`,
        value: big,
        unit: "ms",
        baseline: { name: "getChecksum 1 KiB object", value: small, unit: "ms" },
        ratio: big / small,
        target: "constant time: ratio ~1 (<= 1.5)",
        pass: big / small <= 1.5,
      });
    } finally {
      client.close();
    }
  } finally {
    await node.stop();
    await db.dispose();
    await tmp.dispose();
  }
}

/** Median latency per URL of sequential calls on one keep-alive connection, the URLs taking turns. */
async function latencies(client: KeepAliveClient, urls: string[]): Promise<number[]> {
  for (let i = 0; i < 20; i++) for (const url of urls) await client.ok(url);
  const ms = urls.map(() => [] as number[]);
  for (let i = 0; i < CHECKSUM_CALLS; i++) {
    for (const [at, url] of urls.entries()) ms[at]?.push((await client.ok(url)).ms);
  }
  return ms.map(median);
}

/** Let the page cache write back what earlier steps wrote, so that it does not slow the next measurement. */
async function settle(): Promise<void> {
  await run("sync", []);
}

export async function fileSha1(file: string): Promise<string> {
  const hash = createHash("sha1");
  for await (const chunk of createReadStream(file, { highWaterMark: MIB })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}
