/** Concurrent uploads share the hasher threads and ring without mixing bytes; threads never hold the process. */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { createHasherPool } from "../../../src/store/upload-ring/hasher-pool.ts";
import { chunked, hex, readAll, scratchStore } from "./helpers.ts";

describe("concurrent staging", () => {
  it("gives each of many concurrent uploads its own digests (default ring)", async () => {
    const s = await scratchStore();
    try {
      const sizes = [0, 1, 5000, 130 * 1024, 1 << 20, 3 * 1024 * 1024 + 3, 7 * 1024 * 1024, 2 * 1024 * 1024];
      const inputs = sizes.map((n) => randomBytes(n));
      const staged = await Promise.all(
        inputs.map((data, i) =>
          s.store.stage(chunked(data, 1000 + i * 7919), i % 2 ? { algorithm: "SHA-512" } : {}),
        ),
      );
      for (const [i, data] of inputs.entries()) {
        const got = staged[i];
        assert.ok(got);
        assert.equal(got.digests.size, data.length);
        // A declared algorithm is computed instead of MD5 and SHA-1 (those are computed on first request).
        assert.equal(got.digests.md5, i % 2 ? "" : hex("md5", data));
        assert.equal(got.digests.sha1, i % 2 ? "" : hex("sha1", data));
        assert.equal(got.key, hex("sha256", data));
        if (i % 2) assert.equal(got.digests.extra?.value, hex("sha512", data));
        await got.commit();
        assert.ok((await readAll(s.store.read(got.key))).equals(data));
      }
    } finally {
      await s.dispose();
    }
  });

  it("waits for free slots when the ring is small (backpressure), still correct", async () => {
    const s = await scratchStore({ slots: 2, slotSize: 64 * 1024, maxInFlight: 2, smallLimit: 0 });
    try {
      const inputs = Array.from({ length: 6 }, (_, i) => randomBytes(300 * 1024 + i * 4097));
      const staged = await Promise.all(inputs.map((data) => s.store.stage(chunked(data, 50_000))));
      for (const [i, data] of inputs.entries()) {
        assert.equal(staged[i]?.digests.md5, hex("md5", data));
        assert.equal(staged[i]?.key, hex("sha256", data));
        await staged[i]?.discard();
      }
      assert.deepEqual(await s.temps(), []);
    } finally {
      await s.dispose();
    }
  });

  it("hasher pool: a slot wait can be aborted; a closed pool refuses work", async () => {
    const pool = createHasherPool({ slots: 1, slotSize: 1024 });
    const slot = await pool.acquire();
    const abort = new AbortController();
    const waiting = pool.acquire(abort.signal);
    abort.abort(new Error("gave up"));
    await assert.rejects(waiting, /gave up/);
    pool.release(slot);
    const again = await pool.acquire();
    const job = pool.open(["md5"]);
    again.bytes.set(Buffer.from("abc"));
    await job.update(again, 3);
    assert.deepEqual(await job.finish(), { md5: hex("md5", Buffer.from("abc")) });
    await pool.close();
    await assert.rejects(pool.acquire(), /closed/);
    assert.throws(() => pool.open(["md5"]), /closed/);
  });

  it("hasher threads do not keep a process alive when the store is not closed", async () => {
    const script = [
      'import { Readable } from "node:stream";',
      `import { createFsStore } from ${JSON.stringify(new URL("../../../src/store/index.ts", import.meta.url).href)};`,
      "const root = process.argv[1];",
      "const store = await createFsStore(root);",
      "const staged = await store.stage(Readable.from([Buffer.alloc(3 << 20, 1)]));",
      "await staged.discard();",
      "console.log(staged.digests.size);",
    ].join("\n");
    const s = await scratchStore();
    try {
      const run = promisify(execFile);
      const { stdout } = await run(
        process.execPath,
        ["--import", "tsx", "--input-type=module", "-e", script, s.root],
        { timeout: 20_000 },
      );
      assert.equal(stdout.trim(), String(3 << 20));
    } finally {
      await s.dispose();
    }
  });
});
