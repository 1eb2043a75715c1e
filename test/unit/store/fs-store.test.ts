/** The filesystem object store: stage + commit + read, content addressing, layout, keys, temp sweeping. */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { chunked, hex, readAll, type Scratch, scratchStore } from "./helpers.ts";

describe("fs store", () => {
  let s: Scratch;
  before(async () => {
    s = await scratchStore();
  });
  after(() => s.dispose());

  for (const [label, size] of [
    ["0 bytes", 0],
    ["1 byte", 1],
    ["200 KiB (hasher threads)", 200 * 1024],
    ["5 MiB of random data", 5 * 1024 * 1024],
  ] as const) {
    it(`round-trips ${label} with node:crypto's digests`, async () => {
      const data = randomBytes(size);
      const staged = await s.store.stage(chunked(data));
      assert.deepEqual(staged.digests, {
        size,
        md5: hex("md5", data),
        sha1: hex("sha1", data),
        sha256: hex("sha256", data),
      });
      assert.equal(staged.key, staged.digests.sha256);
      assert.equal(await s.store.has(staged.key), false);
      await staged.commit();
      await staged.commit();
      await staged.discard();
      assert.equal(await s.store.has(staged.key), true);
      assert.ok((await readAll(s.store.read(staged.key))).equals(data));
      assert.deepEqual(await s.temps(), []);
    });
  }

  it("stores the same content once, at objects/ab/cd/<sha256>", async () => {
    const data = randomBytes(300 * 1024);
    const first = await s.store.stage(chunked(data, 1 << 20));
    const second = await s.store.stage(chunked(data, 1000));
    assert.equal(first.key, second.key);
    await first.commit();
    await second.commit();
    const key = first.key;
    const dir = path.join(s.root, "objects", key.slice(0, 2), key.slice(2, 4));
    assert.deepEqual(await readdir(dir), [key]);
    assert.equal((await stat(path.join(dir, key))).size, data.length);
    assert.deepEqual(await s.temps(), []);
  });

  it("computes the declared extra algorithm (SHA-512, SHA-384) under its DataONE name", async () => {
    const data = randomBytes(3 * 1024 * 1024 + 5);
    const big = await s.store.stage(chunked(data), { algorithm: "sha512" });
    assert.deepEqual(big.digests.extra, { algorithm: "SHA-512", value: hex("sha512", data) });
    assert.equal(big.digests.md5, "");
    await big.discard();
    const small = await s.store.stage(chunked(data.subarray(0, 10)), { algorithm: "SHA-384" });
    assert.deepEqual(small.digests.extra, {
      algorithm: "SHA-384",
      value: hex("sha384", data.subarray(0, 10)),
    });
    await small.discard();
    const base = await s.store.stage(chunked(data.subarray(0, 10)), { algorithm: "SHA-1" });
    assert.equal(base.digests.extra, undefined);
    await base.discard();
    assert.deepEqual(await s.temps(), []);
  });

  it("rejects an unknown algorithm before reading, leaving nothing in tmp", async () => {
    const source = chunked(randomBytes(1000));
    await assert.rejects(s.store.stage(source, { algorithm: "CRC32" }), { code: "UNSUPPORTED_ALGORITHM" });
    assert.equal(source.readableDidRead, false);
    assert.deepEqual(await s.temps(), []);
  });

  it("reads byte ranges (end inclusive) and throws ENOENT for missing keys", async () => {
    const data = randomBytes(3 * 1024 * 1024);
    const staged = await s.store.stage(chunked(data));
    await staged.commit();
    const part = await readAll(s.store.read(staged.key, { start: 1_000_000, end: 2_500_000 }));
    assert.ok(part.equals(data.subarray(1_000_000, 2_500_001)));
    assert.throws(() => s.store.read("0".repeat(64)), { code: "ENOENT" });
  });

  it("refuses keys that are not 64 lower-case hex digits", async () => {
    for (const key of ["../../etc/passwd", "A".repeat(64), "0".repeat(63), `${"0".repeat(62)}/x`]) {
      assert.throws(() => s.store.read(key), { code: "INVALID_KEY" });
      await assert.rejects(s.store.has(key), { code: "INVALID_KEY" });
      await assert.rejects(s.store.remove(key), { code: "INVALID_KEY" });
    }
  });

  it("lists every committed key and removes them", async () => {
    const keys: string[] = [];
    for await (const key of s.store.keys()) keys.push(key);
    assert.ok(keys.length >= 6);
    for (const key of keys) assert.match(key, /^[0-9a-f]{64}$/);
    for (const key of keys) await s.store.remove(key);
    await s.store.remove(keys[0] ?? "");
    const left: string[] = [];
    for await (const key of s.store.keys()) left.push(key);
    assert.deepEqual(left, []);
  });

  it("discards a staged object, and refuses to commit it afterwards", async () => {
    const staged = await s.store.stage(chunked(randomBytes(2 * 1024 * 1024)));
    assert.equal((await s.temps()).length, 1);
    await staged.discard();
    await staged.discard();
    assert.deepEqual(await s.temps(), []);
    await assert.rejects(staged.commit(), /discarded/);
    assert.equal(await s.store.has(staged.key), false);
  });

  it("sweeps leftover temp files", async () => {
    await writeFile(path.join(s.root, "tmp", "left-1"), "x");
    await writeFile(path.join(s.root, "tmp", "left-2"), "y");
    assert.equal(await s.store.sweepTemp(), 2);
    assert.deepEqual(await s.temps(), []);
    assert.equal(await s.store.sweepTemp(), 0);
  });
});
