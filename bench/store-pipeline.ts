/**
 * Upload pipeline throughput over 1 GiB (a generated file, read back as the source, 1 MiB chunks):
 * (a) baseline: read -> MD5+SHA-1+SHA-256 on the main thread -> write + fsync;
 * (b) store.stage() + commit() (hashing in the hasher threads).
 * Prints the median of 3 runs each in MiB/s and the ratio b/a.
 * Usage: node --import tsx bench/store-pipeline.ts [MiB]
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createFsStore } from "../src/store/index.ts";

const MIB = 1 << 20;

/** The one-thread pipeline: read, hash MD5+SHA-1+SHA-256, write, fsync. */
export async function oneThreadPipeline(
  srcPath: string,
  dstPath: string,
): Promise<{ bytes: number; seconds: number; cpuSeconds: number }> {
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const hashes = [createHash("md5"), createHash("sha1"), createHash("sha256")];
  const out = await open(dstPath, "wx");
  let bytes = 0;
  try {
    for await (const chunk of createReadStream(srcPath, { highWaterMark: MIB }) as AsyncIterable<Buffer>) {
      for (const h of hashes) h.update(chunk);
      let done = 0;
      while (done < chunk.length)
        done += (await out.write(chunk, done, chunk.length - done, bytes + done)).bytesWritten;
      bytes += chunk.length;
    }
    for (const h of hashes) h.digest("hex");
    await out.sync();
  } finally {
    await out.close();
  }
  const used = process.cpuUsage(cpu);
  return {
    bytes,
    seconds: Number(process.hrtime.bigint() - started) / 1e9,
    cpuSeconds: (used.user + used.system) / 1e6,
  };
}

/** A file of `mib` MiB, written in 1 MiB chunks that all differ. */
export async function generateFile(file: string, mib: number): Promise<void> {
  const block = Buffer.alloc(MIB);
  for (let i = 0; i < MIB; i += 4) block.writeUInt32LE((i * 2654435761) >>> 0, i);
  const handle = await open(file, "w");
  try {
    for (let i = 0; i < mib; i++) {
      block.writeUInt32LE(i, 0);
      await handle.write(block, 0, MIB, i * MIB);
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function storePipeline(srcPath: string, root: string): Promise<{ bytes: number; seconds: number }> {
  const store = await createFsStore(root);
  try {
    const started = process.hrtime.bigint();
    const staged = await store.stage(createReadStream(srcPath, { highWaterMark: MIB }));
    await staged.commit();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    await store.remove(staged.key);
    return { bytes: staged.digests.size, seconds };
  } finally {
    await store.close();
  }
}

const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function main(): Promise<void> {
  const mib = Number(process.argv[2] ?? 1024);
  const dir = await mkdtemp(path.join(os.tmpdir(), "d1node-store-bench-"));
  try {
    const src = path.join(dir, "source.bin");
    await generateFile(src, mib);
    const a: number[] = [];
    const b: number[] = [];
    for (let run = 1; run <= 3; run++) {
      const dst = path.join(dir, "baseline.bin");
      const base = await oneThreadPipeline(src, dst);
      await rm(dst);
      a.push(base.bytes / MIB / base.seconds);
      const staged = await storePipeline(src, path.join(dir, "store"));
      b.push(staged.bytes / MIB / staged.seconds);
      process.stdout.write(
        `run ${run}: (a) ${a.at(-1)?.toFixed(0)} MiB/s  (b) ${b.at(-1)?.toFixed(0)} MiB/s\n`,
      );
    }
    const ma = median(a);
    const mb = median(b);
    process.stdout.write(
      `${mib} MiB, median of 3: (a) one-thread ${ma.toFixed(0)} MiB/s, (b) store ${mb.toFixed(0)} MiB/s, ` +
        `b/a ${(mb / ma).toFixed(2)}\n`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
