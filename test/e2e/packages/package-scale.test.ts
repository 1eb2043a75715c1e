/**
 * MNPackage at scale, against a node running as its own process (SQLite) so that its memory can be watched:
 * a bag of 1000 members (every manifest line verified) and a bag of 10 GiB (ten 1 GiB members sharing one
 * stored copy; the client keeps only the head and tail of the zip and reads the central directory from them).
 * The server's resident memory is sampled throughout and must stay flat.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import zlib from "node:zlib";
import yauzl from "yauzl";
import { enc } from "../../helpers/clients/client.ts";
import { type SeededPackage, seedPackage } from "../../helpers/data/package-seed.ts";
import { ADMIN } from "../../helpers/nodes/node.ts";
import { type NodeProcess, spawnNode } from "../../helpers/nodes/process-node.ts";
import { unzip, verifyManifests } from "../../helpers/validation/bag.ts";

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const BIG_MEMBERS = 10;
/** How much the server's resident memory may grow while it streams a bag (buffers, GC slack), whatever its size. */
const FLAT_MEMORY_BOUND = 128 * MiB;
/** The 10 GiB bag takes a minute or two on a small machine; D1NODE_TEST_SCALE=skip leaves it out. */
const SKIP_10GIB = process.env.D1NODE_TEST_SCALE === "skip";

/** 1 GiB: one random MiB repeated, so that its CRC and digests can be computed without holding it. */
const block = randomBytes(MiB);
const gibibyte = () =>
  Readable.from(
    (function* () {
      for (let i = 0; i < 1024; i++) yield block;
    })(),
  );

describe("MNPackage at scale (node process, SQLite)", { timeout: 900_000 }, () => {
  let dataDir: string;
  let running: NodeProcess;
  let small: SeededPackage;
  let big: SeededPackage;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "d1node-packages-"));
    small = await seedPackage(
      dataDir,
      "scale-map-1000",
      Array.from({ length: 1000 }, (_, i) => ({
        pid: `scale-member-${i}`,
        fileName: `part ${i % 10}.csv`,
        bytes: () => Readable.from([Buffer.from(`member,${i}\n`.repeat(1 + (i % 50)))]),
      })),
    );
    big = await seedPackage(
      dataDir,
      "scale-map-10gib",
      Array.from({ length: BIG_MEMBERS }, (_, i) => ({
        pid: `big-${i}`,
        fileName: `big-${i}.bin`,
        bytes: gibibyte,
        contentKey: "gib",
      })),
    );
    running = await spawnNode(["--data-dir", dataDir, "--admin-subject", ADMIN]);
  });
  after(async () => {
    await running?.kill();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const rss = () => {
    const status = readFileSync(`/proc/${running.child.pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  };

  /** GET a bag, handing each chunk to `onChunk`; the server's RSS is sampled every 100 ms. */
  const download = (pid: string, onChunk: (chunk: Buffer) => void) =>
    new Promise<{ bytes: number; firstByteMs: number; peakRss: number; startRss: number; samples: number[] }>(
      (resolve, reject) => {
        const startRss = rss();
        let peakRss = startRss;
        const samples: number[] = [];
        const sampler = setInterval(() => {
          samples.push(rss());
          peakRss = Math.max(peakRss, samples.at(-1) as number);
        }, 100);
        const started = performance.now();
        let firstByteMs = -1;
        let bytes = 0;
        const url = `${running.baseUrl}/v2/packages/${enc("application/bagit-097")}/${enc(pid)}`;
        http
          .get(url, (response) => {
            if (response.statusCode !== 200) {
              clearInterval(sampler);
              return reject(new Error(`HTTP ${response.statusCode}`));
            }
            response.on("data", (chunk: Buffer) => {
              if (firstByteMs < 0) firstByteMs = performance.now() - started;
              bytes += chunk.length;
              onChunk(chunk);
            });
            response.on("end", () => {
              clearInterval(sampler);
              resolve({ bytes, firstByteMs, peakRss: Math.max(peakRss, rss()), startRss, samples });
            });
            response.on("error", reject);
          })
          .on("error", reject);
      },
    );

  it("a 1000-member bag: every manifest line checks out", async () => {
    const chunks: Buffer[] = [];
    const result = await download(small.mapPid, (chunk) => chunks.push(chunk));
    const files = await unzip(Buffer.concat(chunks));
    const { payload } = verifyManifests(files);
    assert.equal(payload.length, 1000);
    assert.equal(new Set(payload).size, 1000);
    assert.ok(payload.includes("data/part 0.csv") && payload.includes("data/part 0_100.csv"));
    const octets = [...small.digests.entries()]
      .filter(([pid]) => pid !== small.mapPid)
      .reduce((s, [, d]) => s + d.size, 0);
    assert.match(files.get("bag-info.txt")?.toString() ?? "", new RegExp(`Payload-Oxum: ${octets}\\.1000`));
    process.stdout.write(
      `# 1000 members: ${result.bytes} bytes, first byte ${result.firstByteMs.toFixed(0)} ms, server RSS +${((result.peakRss - result.startRss) / MiB).toFixed(1)} MiB\n`,
    );
  });

  it("a 10 GiB bag streams with flat server memory and a correct central directory", {
    skip: SKIP_10GIB,
  }, async () => {
    const head: Buffer[] = [];
    let headBytes = 0;
    const tail: Buffer[] = [];
    let tailBytes = 0;
    const result = await download(big.mapPid, (chunk) => {
      if (headBytes < MiB) {
        head.push(chunk);
        headBytes += chunk.length;
      }
      tail.push(chunk);
      tailBytes += chunk.length;
      while (tail.length > 1 && tailBytes - (tail[0] as Buffer).length >= 8 * MiB)
        tailBytes -= (tail.shift() as Buffer).length;
    });
    const growth = result.peakRss - result.startRss;
    process.stdout.write(
      `# 10 GiB: ${result.bytes} bytes, first byte ${result.firstByteMs.toFixed(0)} ms, server RSS ${(result.startRss / MiB).toFixed(0)} MiB, +${(growth / MiB).toFixed(1)} MiB at peak\n`,
    );
    assert.ok(result.bytes > BIG_MEMBERS * GiB);
    assert.ok(growth < FLAT_MEMORY_BOUND, `server memory grew by ${growth} bytes`);
    // Flat, not merely bounded: the second half of the download holds no more memory than the first half did.
    const half = Math.floor(result.samples.length / 2);
    const firstHalfPeak = Math.max(...result.samples.slice(0, half));
    const secondHalfPeak = Math.max(...result.samples.slice(half));
    assert.ok(
      secondHalfPeak - firstHalfPeak < 32 * MiB,
      `RSS rose from ${firstHalfPeak} to ${secondHalfPeak}`,
    );

    const files = await readEnds(Buffer.concat(head), Buffer.concat(tail), result.bytes);
    let crc = 0;
    for (let i = 0; i < 1024; i++) crc = zlib.crc32(block, crc);
    const data = [...files.entries.values()].filter((e) => e.fileName.startsWith("data/"));
    assert.equal(data.length, BIG_MEMBERS);
    for (const entry of data) {
      assert.equal(entry.uncompressedSize, GiB);
      assert.equal(entry.crc32, crc >>> 0);
    }
    const digests = big.digests.get("big-0");
    const md5Lines = files.contents.get("manifest-md5.txt")?.toString().trim().split("\n") ?? [];
    assert.deepEqual(
      md5Lines.sort(),
      Array.from({ length: BIG_MEMBERS }, (_, i) => `${digests?.md5}  data/big-${i}.bin`).sort(),
    );
    assert.match(
      files.contents.get("bag-info.txt")?.toString() ?? "",
      new RegExp(`Payload-Oxum: ${BIG_MEMBERS * GiB}\\.${BIG_MEMBERS}`),
    );
    assert.ok(files.contents.get("tagmanifest-sha256.txt")?.toString().includes("  manifest-md5.txt\n"));
  });

  it("a client that goes away mid-bag leaves no open files behind", { skip: SKIP_10GIB }, async () => {
    const fds = () => readdirSync(`/proc/${running.child.pid}/fd`).length;
    const before = fds();
    for (let round = 0; round < 2; round++) {
      await new Promise<void>((resolve, reject) => {
        const url = `${running.baseUrl}/v2/packages/${enc("application/bagit-097")}/${enc(big.mapPid)}`;
        const request = http.get(url, (response) => {
          let received = 0;
          response.on("data", (chunk: Buffer) => {
            received += chunk.length;
            if (received > 300 * MiB) request.destroy();
          });
          response.on("close", () => resolve());
        });
        request.on("error", () => resolve());
        request.on("timeout", () => reject(new Error("timeout")));
      });
    }
    // The server notices the closed socket and closes the member it was reading.
    let after = fds();
    for (let i = 0; i < 50 && after > before; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = fds();
    }
    assert.ok(after <= before, `open files: ${before} before, ${after} after`);
    const ping = await fetch(`${running.baseUrl}/v2/monitor/ping`);
    assert.equal(ping.status, 200);
  });
});

/** The central directory of a zip of which only the head and tail are kept, and the entries held there. */
async function readEnds(head: Buffer, tail: Buffer, total: number) {
  const tailStart = total - tail.length;
  class EndsReader extends yauzl.RandomAccessReader {
    override _readStreamForRange(start: number, end: number): Readable {
      if (end <= head.length) return Readable.from([head.subarray(start, end)]);
      if (start >= tailStart) return Readable.from([tail.subarray(start - tailStart, end - tailStart)]);
      throw new Error(`bytes ${start}-${end} were not kept`);
    }
  }
  const zipfile = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromRandomAccessReader(new EndsReader(), total, { lazyEntries: true }, (error, z) =>
      error ? reject(error) : resolve(z),
    ),
  );
  const entries = new Map<string, yauzl.Entry>();
  const contents = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zipfile.on("entry", (entry: yauzl.Entry) => {
      entries.set(entry.fileName, entry);
      const inHead = entry.relativeOffsetOfLocalHeader + entry.compressedSize + 1024 < head.length;
      const inTail = entry.relativeOffsetOfLocalHeader >= tailStart;
      if (!inHead && !inTail) return zipfile.readEntry();
      zipfile.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("end", () => {
          contents.set(entry.fileName, Buffer.concat(chunks));
          zipfile.readEntry();
        });
        stream.on("error", reject);
      });
    });
    zipfile.on("end", () => resolve());
    zipfile.on("error", reject);
    zipfile.readEntry();
  });
  return { entries, contents };
}
