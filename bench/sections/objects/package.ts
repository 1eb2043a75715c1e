/**
 * package: MNPackage.getPackage of a 1000-member package (1 KiB members), time to first byte, against the time
 * to first byte of a plain MNRead.get of one member measured alternately in the same run.
 * Target: <= 200 ms (Metacat needs about 90 s for such a package, its issue #1534). Also the server's peak RSS
 * growth over all those downloads, against the size of one bag: target under 128 MiB (the bag is streamed, never
 * held).
 */
import { createHash } from "node:crypto";
import http from "node:http";
import path from "node:path";
import { createLoad } from "../../lib/clients.ts";
import { CONTENT_TYPE, CREATE_TAIL, createHead, sysmetaXml } from "../../lib/multipart.ts";
import { backend, startNode, tempDir } from "../../lib/node.ts";
import { median, rssOf, sampleRss } from "../../lib/processes.ts";
import { record } from "../../lib/report.ts";
import { databases, type SectionOptions } from "../types.ts";

const MEMBERS = 1000;
const MiB = 1024 * 1024;
const RUNS_PER_FIGURE = 15;
const ORE = "http://www.openarchives.org/ore/terms";
const BAGIT = encodeURIComponent("application/bagit-097");

export async function packageSection(options: SectionOptions): Promise<void> {
  for (const url of databases(options)) await onBackend(options, url);
}

async function onBackend(options: SectionOptions, pgUrl: string | undefined): Promise<void> {
  const tmp = await tempDir("package");
  const db = await backend(pgUrl);
  const node = await startNode(path.join(tmp.dir, "data"), db);
  try {
    const prefix = "pkg-member-";
    await createLoad({ baseUrl: node.baseUrl, token: node.token, count: MEMBERS, concurrency: 8, prefix });
    const map = "pkg-map";
    await createMap(
      node.baseUrl,
      node.token,
      map,
      Array.from({ length: MEMBERS }, (_, i) => `${prefix}${i}`),
    );
    const packageUrl = `${node.baseUrl}/v2/packages/${BAGIT}/${map}`;
    const memberUrl = `${node.baseUrl}/v2/object/${prefix}0`;
    await firstByte(packageUrl);
    await firstByte(memberUrl);
    const packageRuns: number[] = [];
    const memberRuns: number[] = [];
    const wholeRuns: number[] = [];
    const idleRss = rssOf(node.pid);
    const rss = sampleRss(node.pid, 20);
    let bagBytes = 0;
    for (let i = 0; i < RUNS_PER_FIGURE * Math.max(1, Math.round(options.runs / 3)); i++) {
      const run = await firstByte(packageUrl);
      packageRuns.push(run.firstByteMs);
      wholeRuns.push(run.totalMs);
      bagBytes = run.bytes;
      memberRuns.push((await firstByte(memberUrl)).firstByteMs);
    }
    const value = median(packageRuns);
    const baseline = median(memberRuns);
    record({
      section: "package",
      name: `getPackage time to first byte, ${MEMBERS} members of 1 KiB (${db.dialect})`,
      value,
      unit: "ms",
      baseline: { name: "get of one member, time to first byte", value: baseline, unit: "ms" },
      ratio: value / baseline,
      target: "<= 200 ms",
      pass: value <= 200,
      runs: packageRuns,
      notes: `whole bag (${MEMBERS} members) median ${median(wholeRuns).toFixed(0)} ms`,
    });
    const growth = Math.max(rss.stop() - idleRss, 0);
    record({
      section: "package",
      name: `server RSS growth over ${packageRuns.length} getPackage downloads (${db.dialect})`,
      value: growth / MiB,
      unit: "MiB",
      baseline: { name: "size of one bag", value: bagBytes / MiB, unit: "MiB" },
      ratio: growth / Math.max(bagBytes, 1),
      target: "< 128 MiB",
      pass: growth < 128 * MiB,
    });
  } finally {
    await node.stop();
    await db.dispose();
    await tmp.dispose();
  }
}

/** Milliseconds to the first body byte and to the end, on a fresh connection each time. */
function firstByte(url: string): Promise<{ firstByteMs: number; totalMs: number; bytes: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (response) => {
        let firstByteMs = -1;
        let bytes = 0;
        if (response.statusCode !== 200) reject(new Error(`${url}: HTTP ${response.statusCode}`));
        response.on("data", (chunk: Buffer) => {
          if (firstByteMs < 0) firstByteMs = performance.now() - started;
          bytes += chunk.length;
        });
        response.on("end", () => resolve({ firstByteMs, totalMs: performance.now() - started, bytes }));
        response.on("error", reject);
      })
      .on("error", reject);
  });
}

async function createMap(baseUrl: string, token: string, map: string, members: string[]): Promise<void> {
  const resolve = (pid: string) => `https://cn.dataone.org/cn/v2/resolve/${encodeURIComponent(pid)}`;
  const rdf = [
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ore="http://www.openarchives.org/ore/terms/">',
    `<ore:ResourceMap rdf:about="${resolve(map)}"><ore:describes><ore:Aggregation rdf:about="${resolve(map)}#aggregation">`,
    ...members.map((pid) => `<ore:aggregates rdf:resource="${resolve(pid)}"/>`),
    "</ore:Aggregation></ore:describes></ore:ResourceMap></rdf:RDF>",
  ].join("\n");
  const bytes = Buffer.from(rdf);
  const sha1 = createHash("sha1").update(bytes).digest("hex");
  const body = Buffer.concat([
    createHead(map, sysmetaXml({ pid: map, size: bytes.length, sha1, formatId: ORE })),
    bytes,
    CREATE_TAIL,
  ]);
  const response = await fetch(`${baseUrl}/v2/object`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": CONTENT_TYPE },
    body,
  });
  if (response.status !== 200)
    throw new Error(`creating the resource map: ${response.status} ${await response.text()}`);
}
