/**
 * store-memory: resident memory while `store.stage()` takes a 512 MiB upload (nothing may buffer a whole object),
 * against the growth while the same bytes only pass through one SHA-256 on the main thread, measured in the same
 * run and process. Target: < 100 MB growth (the figure the tests asserted before it moved here).
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createFsStore } from "../../../src/store/index.ts";
import { generated } from "../../../test/unit/store/helpers.ts";
import { record } from "../../lib/report.ts";
import type { SectionOptions } from "../types.ts";

const MIB = 1 << 20;
const OBJECT_MIB = 512;

export async function storeMemory(_options: SectionOptions): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), "d1node-bench-store-"));
  const store = await createFsStore(root);
  try {
    const block = randomBytes(MIB);
    // Warm up: starts the hasher threads and allocates the ring before either baseline is taken.
    await (await store.stage(generated(4, block))).discard();
    const baseline = await growthWhile(async () => {
      const hash = createHash("sha256");
      for await (const chunk of generated(OBJECT_MIB, block)) hash.update(chunk as Buffer);
    });
    const value = await growthWhile(async () => {
      const staged = await store.stage(generated(OBJECT_MIB, block));
      if (staged.digests.size !== OBJECT_MIB * MIB) throw new Error(`staged ${staged.digests.size} bytes`);
      await staged.discard();
    });
    record({
      section: "store-memory",
      name: `RSS growth while staging ${OBJECT_MIB} MiB`,
      value,
      unit: "MB",
      baseline: { name: `RSS growth while hashing ${OBJECT_MIB} MiB in place`, value: baseline, unit: "MB" },
      ratio: baseline > 0 ? value / baseline : undefined,
      target: "< 100 MB",
      pass: value < 100,
    });
  } finally {
    await store.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** Peak resident-memory growth in MB (sampled every 10 ms) while `work` runs. */
async function growthWhile(work: () => Promise<void>): Promise<number> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage().rss);
  return (peak - before) / 1e6;
}
