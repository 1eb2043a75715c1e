/** A large upload streams through: resident memory stays flat (nothing buffers a whole object). */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { describe, it } from "node:test";
import { scratchStore } from "./helpers.ts";

const MIB = 1 << 20;

/** `count` MiB: the same random 1 MiB block with its index stamped in, produced on demand. */
function generated(count: number, block: Buffer): Readable {
  let i = 0;
  return new Readable({
    highWaterMark: MIB,
    read() {
      if (i === count) return void this.push(null);
      const chunk = Buffer.from(block);
      chunk.writeUInt32LE(i++, 0);
      this.push(chunk);
    },
  });
}

describe("memory", () => {
  it("stages 512 MiB with < 100 MB RSS growth", async () => {
    const s = await scratchStore();
    try {
      const block = randomBytes(MIB);
      // Warm up: starts the hasher threads and allocates the ring before the baseline is taken.
      await (await s.store.stage(generated(4, block))).discard();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 10);
      const staged = await s.store.stage(generated(512, block));
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      const expected = createHash("sha256");
      for await (const chunk of generated(512, block)) expected.update(chunk as Buffer);
      assert.equal(staged.digests.size, 512 * MIB);
      assert.equal(staged.key, expected.digest("hex"));
      await staged.discard();
      const growth = (peak - before) / 1e6;
      assert.ok(growth < 100, `RSS grew by ${growth.toFixed(0)} MB`);
    } finally {
      await s.dispose();
    }
  });
});
