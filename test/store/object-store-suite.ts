/**
 * The shared `ObjectStore` conformance suite: every store (filesystem, S3) must pass it, directly and under the
 * fault-injecting decorator. A store is handed in through a harness that opens it on fresh storage, can open a
 * second instance on the same storage (a restart, or another process) and counts leftover temporaries.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import type { ObjectStore } from "../../src/store/types.ts";
import { stallingSource } from "../unit/store/helpers.ts";
import { withFaults } from "./faulty-store.ts";

export interface StoreHarness {
  store: ObjectStore;
  /** Another instance on the same storage, as after a restart (it may sweep any temporary left). */
  reopen(): Promise<ObjectStore>;
  /** How many temporary uploads (files, objects, unfinished multipart uploads) the storage holds. */
  temps(): Promise<number>;
  /** Leave one temporary behind, as a crash would. */
  leaveTemp(): Promise<void>;
  dispose(): Promise<void>;
}

export function hex(algorithm: string, data: Buffer): string {
  return createHash(algorithm).update(data).digest("hex");
}

/** `data` as a stream of `chunk`-sized pieces. */
export function chunked(data: Buffer, chunk = 64 * 1024): Readable {
  const pieces: Buffer[] = [];
  for (let i = 0; i < data.length; i += chunk) pieces.push(data.subarray(i, i + chunk));
  return Readable.from(pieces);
}

/** All the bytes of a read; a missing key may throw at once or error the stream, both count. */
export async function readBytes(
  store: ObjectStore,
  key: string,
  range?: { start: number; end: number },
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of store.read(key, range)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function allKeys(store: ObjectStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of store.keys()) keys.push(key);
  return keys.sort();
}

/** Sizes that cross the stores' internal boundaries (thread hashing at 128 KiB, multipart parts of 5 MiB). */
const SIZES = [0, 1, 200 * 1024, 12 * 1024 * 1024 + 3] as const;

export function runObjectStoreSuite(name: string, open: () => Promise<StoreHarness>): void {
  describe(`ObjectStore conformance: ${name}`, () => {
    let h: StoreHarness;
    let store: ObjectStore;
    before(async () => {
      h = await open();
      store = h.store;
    });
    after(() => h.dispose());

    for (const size of SIZES) {
      it(`stages ${size} bytes with every digest in one pass, invisible until commit, then reads them back`, async () => {
        const data = randomBytes(size);
        const staged = await store.stage(chunked(data, 100_003));
        assert.deepEqual(staged.digests, {
          size,
          md5: hex("md5", data),
          sha1: hex("sha1", data),
          sha256: hex("sha256", data),
        });
        assert.equal(staged.key, staged.digests.sha256);
        assert.equal(await store.has(staged.key), false);
        await staged.commit();
        await staged.commit();
        await staged.discard();
        assert.equal(await store.has(staged.key), true);
        assert.ok((await readBytes(store, staged.key)).equals(data));
        if (store.readSmall && size <= 64 * 1024) assert.ok(store.readSmall(staged.key, size).equals(data));
        assert.equal(await h.temps(), 0);
      });
    }

    it("stores the same content once under its SHA-256, whoever commits it", async () => {
      const data = randomBytes(300 * 1024);
      const [first, second] = await Promise.all([
        store.stage(chunked(data, 1 << 20)),
        store.stage(chunked(data, 1000)),
      ]);
      assert.equal(first.key, second.key);
      await Promise.all([first.commit(), second.commit()]);
      assert.equal((await allKeys(store)).filter((k) => k === first.key).length, 1);
      assert.ok((await readBytes(store, first.key)).equals(data));
      assert.equal(await h.temps(), 0);
    });

    it("with a declared algorithm computes only it and SHA-256; the others are left for later ('')", async () => {
      for (const size of [10, 3 * 1024 * 1024 + 5]) {
        const data = randomBytes(size);
        const md5 = await store.stage(chunked(data), { algorithm: "MD5" });
        assert.deepEqual(md5.digests, { size, md5: hex("md5", data), sha1: "", sha256: hex("sha256", data) });
        await md5.discard();
        const sha256 = await store.stage(chunked(data), { algorithm: "SHA-256" });
        assert.deepEqual(sha256.digests, { size, md5: "", sha1: "", sha256: hex("sha256", data) });
        await sha256.discard();
        const sha512 = await store.stage(chunked(data), { algorithm: "SHA-512" });
        assert.deepEqual(sha512.digests, {
          size,
          md5: "",
          sha1: "",
          sha256: hex("sha256", data),
          extra: { algorithm: "SHA-512", value: hex("sha512", data) },
        });
        await sha512.discard();
      }
      assert.equal(await h.temps(), 0);
    });

    it("computes a declared extra algorithm (SHA-512, SHA-384) under its DataONE name", async () => {
      const data = randomBytes(3 * 1024 * 1024 + 5);
      const big = await store.stage(chunked(data), { algorithm: "sha512" });
      assert.deepEqual(big.digests.extra, { algorithm: "SHA-512", value: hex("sha512", data) });
      await big.discard();
      const small = await store.stage(chunked(data.subarray(0, 10)), { algorithm: "SHA-384" });
      assert.deepEqual(small.digests.extra, {
        algorithm: "SHA-384",
        value: hex("sha384", data.subarray(0, 10)),
      });
      await small.addDigest("SHA-512");
      assert.deepEqual(small.digests.extra, {
        algorithm: "SHA-512",
        value: hex("sha512", data.subarray(0, 10)),
      });
      await small.discard();
      assert.equal(await h.temps(), 0);
    });

    it("refuses an unknown algorithm before reading anything", async () => {
      const source = chunked(randomBytes(1000));
      await assert.rejects(store.stage(source, { algorithm: "CRC32" }), { code: "UNSUPPORTED_ALGORITHM" });
      assert.equal(source.readableDidRead, false);
      assert.equal(await h.temps(), 0);
    });

    it("reads byte ranges (end inclusive); a missing key is ENOENT", async () => {
      const data = randomBytes(3 * 1024 * 1024);
      const staged = await store.stage(chunked(data));
      await staged.commit();
      const part = await readBytes(store, staged.key, { start: 1_000_000, end: 2_500_000 });
      assert.ok(part.equals(data.subarray(1_000_000, 2_500_001)));
      const last = await readBytes(store, staged.key, { start: data.length - 1, end: data.length - 1 });
      assert.ok(last.equals(data.subarray(data.length - 1)));
      await assert.rejects(readBytes(store, "0".repeat(64)), { code: "ENOENT" });
      assert.equal(await store.has("0".repeat(64)), false);
    });

    it("refuses keys that are not 64 lower-case hex digits", async () => {
      for (const key of ["../../etc/passwd", "A".repeat(64), "0".repeat(63), `${"0".repeat(62)}/x`]) {
        await assert.rejects(readBytes(store, key), { code: "INVALID_KEY" });
        await assert.rejects(store.has(key), { code: "INVALID_KEY" });
        await assert.rejects(store.remove(key), { code: "INVALID_KEY" });
      }
    });

    it("discards a staged upload, and refuses to commit it afterwards", async () => {
      const staged = await store.stage(chunked(randomBytes(2 * 1024 * 1024)));
      assert.equal(await h.temps(), 1);
      await staged.discard();
      await staged.discard();
      assert.equal(await h.temps(), 0);
      await assert.rejects(staged.commit(), /discarded/);
      assert.equal(await store.has(staged.key), false);
    });

    it("a source that errors, or an abort, rejects the stage and leaves nothing", async () => {
      const broken = stallingSource(3 * 1024 * 1024, (src) => src.destroy(new Error("connection reset")));
      await assert.rejects(store.stage(broken), /connection reset/);
      const early = stallingSource(10, (src) => src.destroy(new Error("early")));
      await assert.rejects(store.stage(early), /early/);
      const abort = new AbortController();
      const aborted = stallingSource(6 * 1024 * 1024, () => abort.abort(new Error("client went away")));
      await assert.rejects(store.stage(aborted, { signal: abort.signal }), /client went away/);
      assert.equal(aborted.destroyed, true);
      await assert.rejects(
        store.stage(chunked(Buffer.alloc(1)), { signal: AbortSignal.abort(new Error("late")) }),
        /late/,
      );
      await assert.rejects(store.stage(Readable.from([{ a: 1 }])), TypeError);
      assert.equal(await h.temps(), 0);
    });

    it("gives each of several concurrent uploads its own digests", async () => {
      const inputs = [0, 5000, 130 * 1024, 1 << 20, 6 * 1024 * 1024 + 1].map((n) => randomBytes(n));
      const staged = await Promise.all(inputs.map((data, i) => store.stage(chunked(data, 1000 + i * 7919))));
      for (const [i, data] of inputs.entries()) {
        assert.equal(staged[i]?.key, hex("sha256", data));
        assert.equal(staged[i]?.digests.md5, hex("md5", data));
        await staged[i]?.commit();
        assert.ok((await readBytes(store, hex("sha256", data))).equals(data));
      }
    });

    it("lists every committed key and removes them (removing twice is no error)", async () => {
      const keys = await allKeys(store);
      assert.ok(keys.length >= 6);
      for (const key of keys) assert.match(key, /^[0-9a-f]{64}$/);
      for (const key of keys) await store.remove(key);
      await store.remove(keys[0] ?? "");
      assert.deepEqual(await allKeys(store), []);
      for (const key of keys) assert.equal(await store.has(key), false);
    });

    it("a restart sweeps the temporaries a crash left; uploads in progress are left alone", async () => {
      await h.leaveTemp();
      assert.equal(await h.temps(), 1);
      const again = await h.reopen();
      try {
        assert.equal(await again.sweepTemp(), 1);
        assert.equal(await h.temps(), 0);
        assert.equal(await again.sweepTemp(), 0);
        // An upload staged (not committed) by the running instance survives the other's sweep... once it is done
        // with: the running instance discards it itself.
        const staged = await store.stage(chunked(randomBytes(1000)));
        await store.sweepTemp();
        await staged.commit();
        assert.equal(await again.has(staged.key), true);
        assert.ok((await readBytes(again, staged.key)).length === 1000);
      } finally {
        await again.close();
      }
    });

    describe("under injected faults", () => {
      it("a store write that fails mid-way rejects and leaves no temporary", async () => {
        const faulty = withFaults(store, { failStageAfterBytes: 2 * 1024 * 1024 + 17 });
        await assert.rejects(faulty.stage(chunked(randomBytes(8 * 1024 * 1024))), { code: "EIO" });
        assert.equal(await h.temps(), 0);
      });

      it("slow writes are still whole and correct", async () => {
        const faulty = withFaults(store, { delayMs: 2 });
        const data = randomBytes(1024 * 1024 + 9);
        const staged = await faulty.stage(chunked(data, 32 * 1024));
        assert.equal(staged.key, hex("sha256", data));
        await staged.commit();
        assert.ok((await readBytes(faulty, staged.key)).equals(data));
      });

      it("a failed commit places nothing; a retried one places the bytes", async () => {
        const faulty = withFaults(store, { failCommit: "before" });
        const data = randomBytes(4096);
        const staged = await faulty.stage(chunked(data));
        await assert.rejects(staged.commit(), { code: "EIO" });
        assert.equal(await store.has(staged.key), false);
        faulty.faults = {};
        await staged.commit();
        assert.ok((await readBytes(store, staged.key)).equals(data));
        assert.equal(await h.temps(), 0);
      });

      it("a torn write (a crash mid-upload) leaves nothing visible; a restart sweeps what it left", async () => {
        const faulty = withFaults(store, { tearStageAfterBytes: 6 * 1024 * 1024 });
        const data = randomBytes(10 * 1024 * 1024);
        await assert.rejects(faulty.stage(chunked(data)), { code: "TORN" });
        assert.equal(await store.has(hex("sha256", data)), false);
        assert.equal(await store.has(hex("sha256", data.subarray(0, 6 * 1024 * 1024))), false);
        const again = await h.reopen();
        try {
          assert.ok((await again.sweepTemp()) >= 1);
          assert.equal(await h.temps(), 0);
        } finally {
          await again.close();
        }
      });

      it("a read that fails mid-way errors the stream (never a short, clean end)", async () => {
        const data = randomBytes(3 * 1024 * 1024);
        const staged = await store.stage(chunked(data));
        await staged.commit();
        const faulty = withFaults(store, { failReadAfterBytes: 1024 * 1024 });
        await assert.rejects(readBytes(faulty, staged.key), { code: "EIO" });
      });
    });
  });
}
