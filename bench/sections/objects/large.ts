/**
 * large: a 1 GiB object over loopback.
 *   create (curl -F, sysmeta part first) vs the one-thread read -> MD5+SHA-1+SHA-256 -> write+fsync pipeline on
 *   the same bytes: target >= 90 %, also with one core kept busy by another process (both sides under it); the
 *   server's CPU-seconds per MiB created (all its threads, from /proc): target <= GMN's 3.9 ms/MiB on this machine;
 *   the same create with the object part first (d1_client's order: pid, object, sysmeta), taking turns with the
 *   sysmeta-first runs: its CPU per MiB against theirs, target <= 1.1 (the node hashes it with the algorithm curl's
 *   client declared in the runs before, src/http/declared-algorithms.ts);
 *   the server's peak RSS during the upload: target < 150 MB;
 *   get to /dev/null (curl): target >= 1 GiB/s, steady state (page cache) beside bare Fastify streaming the same
 *   bytes; the first read after the create (from the disk) in the notes;
 *   getChecksum of the 1 GiB object vs a 1 KiB object (median latency): constant time, ratio ~1.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createLoad, curl, KeepAliveClient } from "../../lib/clients.ts";
import { sysmetaXml } from "../../lib/multipart.ts";
import { backend, startNode, tempDir } from "../../lib/node.ts";
import { busyCore, cpuSecondsOf, median, rssOf, sampleRss, serve } from "../../lib/processes.ts";
import { record } from "../../lib/report.ts";
import { generateFile, oneThreadPipeline } from "../../store-pipeline.ts";
import type { SectionOptions } from "../types.ts";

const run = promisify(execFile);
const HELLO = fileURLToPath(new URL("../../hello-server.ts", import.meta.url));
const MIB = 1 << 20;
const GIB = 1 << 30;
const CHECKSUM_CALLS = 200;
/** GMN's server CPU per MiB for the same curl upload (256 MiB, sysmeta first), measured on this machine. */
const GMN_CPU_MS_PER_MIB = 3.9;

export async function large(options: SectionOptions): Promise<void> {
  const tmp = await tempDir("large");
  const db = await backend(undefined);
  const node = await startNode(path.join(tmp.dir, "data"), db);
  try {
    const src = path.join(tmp.dir, "source.bin");
    await generateFile(src, GIB / MIB);
    const sha1 = await fileSha1(src);
    const idleRss = rssOf(node.pid);
    let peakRss = 0;
    let pid = "";
    /** One create of the 1 GiB object beside one run of the one-thread pipeline on the same bytes. */
    const createBesideBaseline = async (tag: string, objectFirst = false): Promise<CreateRun> => {
      await settle();
      const dst = path.join(tmp.dir, "baseline.bin");
      const base = await oneThreadPipeline(src, dst);
      await rm(dst);
      await settle();
      pid = `large-${tag}`;
      const sysmeta = path.join(tmp.dir, `sysmeta-${tag}.xml`);
      await writeFile(sysmeta, sysmetaXml({ pid, size: GIB, sha1, formatId: "application/octet-stream" }));
      const rss = sampleRss(node.pid, 20);
      const cpuBefore = cpuSecondsOf(node.pid);
      const sysmetaPart = ["-F", `sysmeta=@${sysmeta};type=text/xml`];
      const objectPart = ["-F", `object=@${src};type=application/octet-stream`];
      const w = await curl(
        [
          ...["-o", path.join(tmp.dir, "create.xml"), "-H", "Expect:"],
          ...["-H", `Authorization: Bearer ${node.token}`],
          ...["-F", `pid=${pid}`],
          ...(objectFirst ? [...objectPart, ...sysmetaPart] : [...sysmetaPart, ...objectPart]),
          `${node.baseUrl}/v2/object`,
        ],
        ["http_code", "time_total", "size_upload"],
      );
      const cpu = cpuSecondsOf(node.pid) - cpuBefore;
      peakRss = Math.max(peakRss, rss.stop());
      return {
        rate: Number(w.size_upload) / Number(w.time_total),
        cpuMsPerMib: (cpu * 1000) / (GIB / MIB),
        baseline: base.bytes / base.seconds,
        baselineCpuMsPerMib: (base.cpuSeconds * 1000) / (base.bytes / MIB),
      };
    };
    const quiet: CreateRun[] = [];
    const objectFirst: CreateRun[] = [];
    for (let i = 0; i < options.runs; i++) {
      quiet.push(await createBesideBaseline(`${i}`));
      objectFirst.push(await createBesideBaseline(`object-first-${i}`, true));
    }
    const busy: CreateRun[] = [];
    for (let i = 0; i < options.runs; i++) {
      const load = busyCore();
      try {
        busy.push(await createBesideBaseline(`busy-${i}`));
      } finally {
        await load.stop();
      }
    }
    recordCreate("create 1 GiB (curl -F, sysmeta first)", quiet);
    recordCreate("create 1 GiB, one core kept busy by another process", busy);
    recordCreate("create 1 GiB (curl -F, object part first: d1_client's order)", objectFirst);
    const cpu = median(quiet.map((r) => r.cpuMsPerMib));
    const baselineCpu = median(quiet.map((r) => r.baselineCpuMsPerMib));
    record({
      section: "large",
      name: "server CPU per MiB created (create 1 GiB)",
      value: cpu,
      unit: "ms/MiB",
      baseline: { name: "GMN on this machine (same curl upload)", value: GMN_CPU_MS_PER_MIB, unit: "ms/MiB" },
      ratio: cpu / GMN_CPU_MS_PER_MIB,
      target: `<= ${GMN_CPU_MS_PER_MIB} ms/MiB (GMN's figure)`,
      pass: cpu <= GMN_CPU_MS_PER_MIB,
      runs: quiet.map((r) => r.cpuMsPerMib),
      notes:
        `${((cpu * 1024) / 1000).toFixed(2)} CPU-s/GiB; one-thread pipeline: ${baselineCpu.toFixed(2)} ms/MiB; ` +
        `with one busy core: ${median(busy.map((r) => r.cpuMsPerMib)).toFixed(2)} ms/MiB`,
    });
    const objectFirstCpu = median(objectFirst.map((r) => r.cpuMsPerMib));
    const objectFirstRate = median(objectFirst.map((r) => r.rate));
    const sysmetaFirstRate = median(quiet.map((r) => r.rate));
    record({
      section: "large",
      name: "server CPU per MiB created, object part first (create 1 GiB)",
      value: objectFirstCpu,
      unit: "ms/MiB",
      baseline: { name: "the sysmeta-first creates of the same run", value: cpu, unit: "ms/MiB" },
      ratio: objectFirstCpu / cpu,
      target: "<= 1.1 of the sysmeta-first order",
      pass: objectFirstCpu / cpu <= 1.1,
      runs: objectFirst.map((r) => r.cpuMsPerMib),
      notes:
        `${(objectFirstCpu / GMN_CPU_MS_PER_MIB).toFixed(2)} of GMN's ${GMN_CPU_MS_PER_MIB} ms/MiB; ` +
        `${(objectFirstRate / MIB).toFixed(1)} MiB/s against ${(sysmetaFirstRate / MIB).toFixed(1)} MiB/s ` +
        `sysmeta first (ratio ${(objectFirstRate / sysmetaFirstRate).toFixed(2)})`,
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

    // The first get after the create reads the bytes from the disk (uploads write them past the page cache,
    // src/store/upload-ring/direct-io.ts); later gets find them in the page cache (steady state). Baseline: a bare Fastify
    // server streaming the source file (in the page cache too) in 1 MiB chunks, measured in the same run.
    await settle();
    const first = await timedGet(node.pid, `${node.baseUrl}/v2/object/${pid}`);
    const hello = await serve(["--import", "tsx", HELLO, "--stream", src]);
    const gets: GetRun[] = [];
    const bare: GetRun[] = [];
    try {
      await timedGet(hello.child.pid ?? 0, `${hello.url}stream`);
      for (let i = 0; i < options.runs; i++) {
        bare.push(await timedGet(hello.child.pid ?? 0, `${hello.url}stream`));
        gets.push(await timedGet(node.pid, `${node.baseUrl}/v2/object/${pid}`));
      }
    } finally {
      await hello.stop();
    }
    const get = median(gets.map((g) => g.rate));
    const bareRate = median(bare.map((g) => g.rate));
    record({
      section: "large",
      name: "get 1 GiB to /dev/null (curl), steady state (bytes in the page cache)",
      value: get / GIB,
      unit: "GiB/s",
      baseline: { name: "bare Fastify streaming the same bytes", value: bareRate / GIB, unit: "GiB/s" },
      ratio: get / bareRate,
      target: ">= 1 GiB/s",
      pass: get >= GIB,
      runs: gets.map((g) => g.rate / GIB),
      notes:
        `server CPU ${median(gets.map((g) => g.cpu)).toFixed(2)} CPU-s/GiB, bare Fastify ` +
        `${median(bare.map((g) => g.cpu)).toFixed(2)}; first read after the create (from the disk): ` +
        `${(first.rate / GIB).toFixed(3)} GiB/s, ${first.cpu.toFixed(2)} CPU-s/GiB`,
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

interface GetRun {
  /** Bytes per second, and the serving process's CPU-seconds during the get. */
  rate: number;
  cpu: number;
}

/** One get of the 1 GiB object to /dev/null, with the CPU-seconds `pid` spent meanwhile. */
async function timedGet(pid: number, url: string): Promise<GetRun> {
  const cpuBefore = cpuSecondsOf(pid);
  const w = await curl(["-o", "/dev/null", url], ["http_code", "speed_download", "size_download"]);
  if (Number(w.size_download) !== GIB) throw new Error(`get returned ${w.size_download} bytes`);
  return { rate: Number(w.speed_download), cpu: cpuSecondsOf(pid) - cpuBefore };
}

interface CreateRun {
  /** Bytes per second of the create, and the server's CPU per MiB during it. */
  rate: number;
  cpuMsPerMib: number;
  /** The one-thread pipeline just before it: bytes per second, its CPU per MiB. */
  baseline: number;
  baselineCpuMsPerMib: number;
}

function recordCreate(name: string, runs: CreateRun[]): void {
  const upload = median(runs.map((r) => r.rate));
  const baseline = median(runs.map((r) => r.baseline));
  record({
    section: "large",
    name,
    value: upload / MIB,
    unit: "MiB/s",
    baseline: { name: "one-thread read+3 hashes+write+fsync", value: baseline / MIB, unit: "MiB/s" },
    ratio: upload / baseline,
    target: ">= 0.90 of the one-thread pipeline",
    pass: upload / baseline >= 0.9,
    runs: runs.map((r) => r.rate / MIB),
    notes:
      `server CPU ${median(runs.map((r) => r.cpuMsPerMib)).toFixed(2)} ms/MiB ` +
      `(${((median(runs.map((r) => r.cpuMsPerMib)) * 1024) / 1000).toFixed(2)} CPU-s/GiB), ` +
      `one-thread pipeline ${median(runs.map((r) => r.baselineCpuMsPerMib)).toFixed(2)} ms/MiB`,
  });
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
