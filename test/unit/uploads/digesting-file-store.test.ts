/**
 * The resumable uploads' file store: digests running across writes equal those of the whole file (SHA-256 and the
 * upload's checksumAlgorithm, no more); a new instance (a restarted node) continues from the file; a body failing
 * or ending part-way, mid-slot, leaves offset and digests on the same bytes, and the next body continues there.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { Upload } from "@tus/utils";
import { DigestingFileStore } from "../../../src/uploads/digesting-file-store.ts";
import { memoryUploadRecords } from "../../helpers/db/memory-upload-records.ts";

const hex = (algorithm: string, bytes: Buffer) => createHash(algorithm).update(bytes).digest("hex");

const MIB = 1 << 20;
/** The digests of an upload that named no checksumAlgorithm: SHA-256 alone. */
const sha256Only = (bytes: Buffer) => ({
  size: bytes.length,
  md5: "",
  sha1: "",
  sha256: hex("sha256", bytes),
});

describe("DigestingFileStore", () => {
  let folder: string;
  /** The database's records, shared by every instance (as by processes on one database). */
  const records = memoryUploadRecords();
  const stores: DigestingFileStore[] = [];
  /** A store on the test folder (as after a restart when there was one before), closed after the tests. */
  const open = (): DigestingFileStore => {
    const store = new DigestingFileStore(folder, 0, records);
    stores.push(store);
    return store;
  };
  before(async () => {
    folder = await mkdtemp(path.join(tmpdir(), "d1node-uploads-"));
  });
  after(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await rm(folder, { recursive: true, force: true });
  });

  async function newUpload(
    store: DigestingFileStore,
    id: string,
    size: number,
    metadata = {},
  ): Promise<void> {
    await store.create(
      new Upload({ id, size, offset: 0, metadata, creation_date: new Date().toISOString() }),
    );
  }

  it("keeps the digests running across writes and across a new instance", async () => {
    const bytes = randomBytes(3_000_000);
    const first = open();
    await newUpload(first, "a".repeat(32), bytes.length, { checksumAlgorithm: "SHA-512" });
    assert.equal(
      await first.write(Readable.from([bytes.subarray(0, 1_000_000)]), "a".repeat(32), 0),
      1_000_000,
    );
    assert.equal(await first.finishedDigests("a".repeat(32)), undefined);
    const rest = Readable.from([bytes.subarray(1_000_000, 2_000_000)]);
    assert.equal(await first.write(rest, "a".repeat(32), 1_000_000), 2_000_000);
    // A restarted node: the running state is rebuilt from the file once.
    const second = open();
    const last = Readable.from([bytes.subarray(2_000_000)]);
    assert.equal(await second.write(last, "a".repeat(32), 2_000_000), bytes.length);
    const digests = await second.finishedDigests("a".repeat(32));
    assert.deepEqual(digests, {
      size: bytes.length,
      md5: "",
      sha1: "",
      sha256: hex("sha256", bytes),
      extra: { algorithm: "SHA-512", value: hex("sha512", bytes) },
    });
  });

  it("computes SHA-256 and the upload's checksumAlgorithm only, as an inline upload does", async () => {
    const bytes = randomBytes(100_000);
    const store = open();
    const named = "c".repeat(32);
    await newUpload(store, named, bytes.length, { checksumAlgorithm: "MD5" });
    await store.write(Readable.from([bytes]), named, 0);
    assert.deepEqual(await store.finishedDigests(named), {
      size: bytes.length,
      md5: hex("md5", bytes),
      sha1: "",
      sha256: hex("sha256", bytes),
    });
    const unnamed = "d".repeat(32);
    await newUpload(store, unnamed, bytes.length);
    await store.write(Readable.from([bytes]), unnamed, 0);
    assert.deepEqual(await store.finishedDigests(unnamed), sha256Only(bytes));
  });

  it("a body that fails part-way leaves the file and the digests on the same bytes", async () => {
    const bytes = randomBytes(200_000);
    const store = open();
    const id = "b".repeat(32);
    await newUpload(store, id, bytes.length);
    const failing = new Readable({
      read() {
        this.push(bytes.subarray(0, 50_000));
        this.destroy(new Error("connection lost"));
      },
    });
    await assert.rejects(store.write(failing, id, 0), /connection lost/);
    const offset = (await stat(store.fileOf(id))).size;
    assert.equal((await store.getUpload(id)).offset, offset);
    await store.write(Readable.from([bytes.subarray(offset)]), id, offset);
    assert.equal((await store.finishedDigests(id))?.sha256, hex("sha256", bytes));
  });

  it("a body cut mid-slot is kept whole; the next ones continue from there, past slot boundaries", async () => {
    const bytes = randomBytes(5 * MIB + 12_345);
    const store = open();
    const id = "e".repeat(32);
    await newUpload(store, id, bytes.length, { checksumAlgorithm: "SHA-1" });
    // Cut (the body ends early, as tus ends it when the connection goes) 1.5 MiB + 7 bytes in, in 64 KiB chunks.
    const cut = 3 * (MIB / 2) + 7;
    assert.equal(await store.write(Readable.from(chunks(bytes.subarray(0, cut))), id, 0), cut);
    // Broken mid-slot: what arrived before the error is written and hashed.
    const brokenAt = 3 * MIB + 99;
    await assert.rejects(
      store.write(failingAfter(bytes.subarray(cut, brokenAt)), id, cut),
      /connection lost/,
    );
    assert.equal((await store.getUpload(id)).offset, brokenAt);
    assert.equal(
      await store.write(Readable.from(chunks(bytes.subarray(brokenAt))), id, brokenAt),
      bytes.length,
    );
    assert.deepEqual(await store.finishedDigests(id), {
      size: bytes.length,
      md5: "",
      sha1: hex("sha1", bytes),
      sha256: hex("sha256", bytes),
    });
    // Taken twice (a refused create, then another): the same digests; the file holds the bytes, the slots after
    // each resumption written directly and the ones around them through the page cache.
    assert.equal((await store.finishedDigests(id))?.sha256, hex("sha256", bytes));
    assert.ok((await readFile(store.fileOf(id))).equals(bytes));
  });

  it("a restart mid-upload rebuilds the digests from the file once, at an offset inside a slot", async () => {
    const bytes = randomBytes(4 * MIB + 3);
    const id = "f".repeat(32);
    const before = open();
    await newUpload(before, id, bytes.length);
    const cut = 2 * MIB + 4097;
    await before.write(Readable.from(chunks(bytes.subarray(0, cut))), id, 0);
    const after = open();
    assert.equal(await after.write(Readable.from(chunks(bytes.subarray(cut))), id, cut), bytes.length);
    assert.deepEqual(await after.finishedDigests(id), sha256Only(bytes));
  });

  it("a finished upload takes no more bytes", async () => {
    const whole = randomBytes(10_000);
    const id = "9".repeat(32);
    const store = open();
    await newUpload(store, id, whole.length);
    const size = await store.write(Readable.from([whole]), id, 0);
    const digests = await store.finishedDigests(id);
    assert.equal(await store.write(Readable.from([]), id, size), size);
    await assert.rejects(store.write(Readable.from([Buffer.from("x")]), id, size), /finished/);
    assert.deepEqual(await store.finishedDigests(id), digests);
    assert.deepEqual(digests, sha256Only(whole));
  });
});

/** `bytes` in 64 KiB chunks, as a socket hands a request body over. */
function chunks(bytes: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 64 * 1024) parts.push(bytes.subarray(at, at + 64 * 1024));
  return parts;
}

/** A body that hands over `bytes` in 64 KiB chunks and then fails, as a connection reset does. */
function failingAfter(bytes: Buffer): Readable {
  const parts = chunks(bytes);
  return new Readable({
    read() {
      const next = parts.shift();
      if (next) this.push(next);
      else this.destroy(new Error("connection lost"));
    },
  });
}
