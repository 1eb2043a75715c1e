/**
 * resumable (only when named; `--upload-gib`, default 20): one object of that size over loopback, created inline
 * (curl -F, the baseline) and then through the resumable path (tus at {basePath}/uploads), its connection killed
 * five times mid-PATCH and resumed from the offset HEAD reports, then MNStorage.create with `objectUpload`.
 * Throughput from the upload's creation to the create's answer vs the inline create: target >= 0.9; the server's
 * peak RSS during the resumable upload: target < 200 MB. The server's CPU-seconds per GiB of each path, from
 * /proc, are the figure to read on a machine shared with other work. The upload names the system metadata's
 * algorithm (SHA-1) in its `checksumAlgorithm` metadata, as `d1node upload` does.
 */
import { execFile } from "node:child_process";
import { createReadStream } from "node:fs";
import { writeFile } from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { curl } from "../lib/clients.ts";
import { sysmetaXml } from "../lib/multipart.ts";
import { type BenchNode, backend, startNode, tempDir } from "../lib/node.ts";
import { cpuSecondsOf, rssOf, sampleRss } from "../lib/processes.ts";
import { record } from "../lib/report.ts";
import { generateFile } from "../store-pipeline.ts";
import { fileSha1 } from "./large.ts";
import type { SectionOptions } from "./types.ts";

const run = promisify(execFile);
const MIB = 1 << 20;
const CUTS = 5;

export async function resumable(options: SectionOptions): Promise<void> {
  const size = options.uploadGiB * 1024 * MIB;
  const tmp = await tempDir("resumable");
  const db = await backend(undefined);
  const node = await startNode(path.join(tmp.dir, "data"), db);
  try {
    const src = path.join(tmp.dir, "source.bin");
    await generateFile(src, size / MIB);
    const sha1 = await fileSha1(src);
    const sysmeta = (pid: string) => sysmetaXml({ pid, size, sha1, formatId: "application/octet-stream" });

    await run("sync", []);
    const inlineSysmeta = path.join(tmp.dir, "inline.xml");
    await writeFile(inlineSysmeta, sysmeta("inline"));
    const inlineCpuBefore = cpuSecondsOf(node.pid);
    const w = await curl(
      [
        ...["-o", path.join(tmp.dir, "create.xml"), "-H", "Expect:"],
        ...["-H", `Authorization: Bearer ${node.token}`],
        ...["-F", "pid=inline", "-F", `sysmeta=@${inlineSysmeta};type=text/xml`],
        ...["-F", `object=@${src};type=application/octet-stream`],
        `${node.baseUrl}/v2/object`,
      ],
      ["http_code", "time_total", "size_upload"],
    );
    if (w.http_code !== "200") throw new Error(`inline create answered ${w.http_code}`);
    const inline = Number(w.size_upload) / Number(w.time_total);
    const inlineCpu = cpuSecondsOf(node.pid) - inlineCpuBefore;
    // The inline copy goes, so that the disk holds the source and one upload at a time.
    await call(node, "DELETE", `${node.baseUrl}/v2/object/inline`);

    await run("sync", []);
    const idleRss = rssOf(node.pid);
    const rss = sampleRss(node.pid, 20);
    const cpuBefore = cpuSecondsOf(node.pid);
    const started = process.hrtime.bigint();
    const location = await resumableUpload(node, src, size);
    const created = await createFrom(node, location, sysmeta("resumable"));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpu = cpuSecondsOf(node.pid) - cpuBefore;
    const peakRss = rss.stop();
    if (created !== 200) throw new Error(`create with objectUpload answered ${created}`);
    const through = size / seconds;
    const gib = options.uploadGiB;
    record({
      section: "resumable",
      name: `${gib} GiB through the resumable path, cut ${CUTS} times, then created`,
      value: through / MIB,
      unit: "MiB/s",
      baseline: {
        name: `inline create of the same ${gib} GiB (curl -F)`,
        value: inline / MIB,
        unit: "MiB/s",
      },
      ratio: through / inline,
      target: ">= 0.90 of the inline create",
      pass: through / inline >= 0.9,
    });
    record({
      section: "resumable",
      name: `server CPU per GiB through the resumable path (cut ${CUTS} times, HEADs, create)`,
      value: cpu / gib,
      unit: "CPU-s/GiB",
      baseline: { name: "server CPU per GiB of the inline create", value: inlineCpu / gib, unit: "CPU-s/GiB" },
      ratio: cpu / inlineCpu,
    });
    record({
      section: "resumable",
      name: `server peak RSS during the ${gib} GiB resumable upload`,
      value: peakRss / 1e6,
      unit: "MB",
      baseline: { name: "the same server idle before it", value: idleRss / 1e6, unit: "MB" },
      target: "< 200 MB",
      pass: peakRss < 200e6,
    });
  } finally {
    await node.stop();
    await db.dispose();
    await tmp.dispose();
  }
}

/** The upload's URL once all `size` bytes of `src` are on the node, after CUTS connections killed part-way. */
async function resumableUpload(node: BenchNode, src: string, size: number): Promise<string> {
  const made = await tusRequest(node, "POST", `${node.baseUrl}/uploads`, {
    "Upload-Length": String(size),
    "Upload-Metadata": `checksumAlgorithm ${Buffer.from("SHA-1").toString("base64")}`,
  });
  const location = made.headers.location;
  if (made.status !== 201 || !location) throw new Error(`upload creation answered ${made.status}`);
  let offset = 0;
  for (let cut = 1; cut <= CUTS; cut++) {
    const until = Math.floor((size * cut) / (CUTS + 1));
    await patch(node, location, src, offset, until, false);
    offset = await settledOffset(node, location);
  }
  await patch(node, location, src, offset, size, true);
  offset = await settledOffset(node, location);
  if (offset !== size) throw new Error(`the upload holds ${offset} of ${size} bytes`);
  return location;
}

/** PATCH the bytes of `src` from `offset` to `until`: the last one whole, the others killed once they are sent. */
function patch(node: BenchNode, location: string, src: string, offset: number, until: number, last: boolean) {
  return new Promise<void>((resolve, reject) => {
    const request = http.request(location, {
      method: "PATCH",
      headers: {
        "Tus-Resumable": "1.0.0",
        Authorization: `Bearer ${node.token}`,
        "Upload-Offset": String(offset),
        "Content-Type": "application/offset+octet-stream",
        ...(last ? { "Content-Length": String(until - offset) } : {}),
      },
    });
    const body = createReadStream(src, { start: offset, end: until - 1, highWaterMark: MIB });
    request.on("response", (response) => {
      response.resume();
      response.on("end", () =>
        response.statusCode === 204 ? resolve() : reject(new Error(`PATCH answered ${response.statusCode}`)),
      );
    });
    request.on("error", () => resolve());
    body.pipe(request, { end: last });
    if (!last) body.on("end", () => request.destroy());
  });
}

/** The offset HEAD reports once the node finished writing what arrived before a cut. */
async function settledOffset(node: BenchNode, location: string): Promise<number> {
  let last = -1;
  for (;;) {
    const head = await tusRequest(node, "HEAD", location, {});
    const offset = Number(head.headers["upload-offset"]);
    if (offset === last) return offset;
    last = offset;
    await sleep(200);
  }
}

function tusRequest(
  node: BenchNode,
  method: string,
  target: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const request = http.request(target, {
      method,
      headers: { "Tus-Resumable": "1.0.0", Authorization: `Bearer ${node.token}`, ...headers },
    });
    request.on("response", (response) => {
      response.resume();
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers }));
    });
    request.on("error", reject);
    request.end();
  });
}

async function createFrom(node: BenchNode, location: string, sysmeta: string): Promise<number> {
  const body = new FormData();
  body.append("pid", "resumable");
  body.append("objectUpload", location);
  body.append("sysmeta", new Blob([sysmeta], { type: "text/xml" }), "sysmeta.xml");
  const answer = await fetch(`${node.baseUrl}/v2/object`, {
    method: "POST",
    body,
    headers: { Authorization: `Bearer ${node.token}` },
  });
  await answer.text();
  return answer.status;
}

async function call(node: BenchNode, method: string, target: string): Promise<void> {
  const answer = await fetch(target, { method, headers: { Authorization: `Bearer ${node.token}` } });
  if (answer.status !== 200)
    throw new Error(`${method} ${target} answered ${answer.status}: ${await answer.text()}`);
}
