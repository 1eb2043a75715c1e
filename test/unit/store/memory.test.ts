/**
 * A large upload streams through in 1 MiB chunks to the right key and size. How flat resident memory stays while
 * it does is measured by `npm run bench -- store-memory` (against a baseline in the same run), not asserted here.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { generated, scratchStore } from "./helpers.ts";

const MIB = 1 << 20;

describe("memory", () => {
  it("stages 16 MiB produced on demand, to the key and size of the bytes", async () => {
    const s = await scratchStore();
    try {
      const block = randomBytes(MIB);
      const staged = await s.store.stage(generated(16, block));
      const expected = createHash("sha256");
      for await (const chunk of generated(16, block)) expected.update(chunk as Buffer);
      assert.equal(staged.digests.size, 16 * MIB);
      assert.equal(staged.key, expected.digest("hex"));
      await staged.discard();
      assert.deepEqual(await s.temps(), []);
    } finally {
      await s.dispose();
    }
  });
});
