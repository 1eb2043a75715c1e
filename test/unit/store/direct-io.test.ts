/** Direct writes: the ring's alignment is found by trying, and bytes written through it read back intact. */
import assert from "node:assert/strict";
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { DIRECT_ALIGN, DIRECT_FLAGS, directOffset } from "../../../src/store/upload-ring/direct-io.ts";
import { createHasherPool } from "../../../src/store/upload-ring/hasher-pool.ts";

describe("direct writes", () => {
  it("finds an offset from which a direct write succeeds (or none), leaving no probe file", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "d1node-direct-"));
    try {
      const buffer = new SharedArrayBuffer(4 * DIRECT_ALIGN);
      const at = directOffset(dir, buffer);
      assert.deepEqual(await readdir(dir), []);
      if (at === undefined || DIRECT_FLAGS === undefined) return; // e.g. tmpfs: buffered writes only
      assert.ok(at >= 0 && at < DIRECT_ALIGN);
      const bytes = new Uint8Array(buffer, at, 2 * DIRECT_ALIGN);
      bytes.fill(0x5a);
      const file = path.join(dir, "f");
      closeSync(openSync(file, "wx"));
      const fd = openSync(file, DIRECT_FLAGS);
      try {
        assert.equal(writeSync(fd, bytes, 0, bytes.length, 0), bytes.length);
      } finally {
        closeSync(fd);
      }
      assert.ok(readFileSync(file).equals(Buffer.alloc(2 * DIRECT_ALIGN, 0x5a)));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a pool is direct only when its slots start where direct writes succeed", async () => {
    const direct = createHasherPool({ slots: 2, slotSize: 64 * 1024, slotOffset: () => 16 });
    const buffered = createHasherPool({ slots: 2, slotSize: 64 * 1024, slotOffset: () => undefined });
    try {
      assert.equal(direct.direct, true);
      assert.equal((await direct.acquire()).bytes.byteOffset % (64 * 1024), 16);
      assert.equal(buffered.direct, false);
    } finally {
      await direct.close();
      await buffered.close();
    }
  });
});
