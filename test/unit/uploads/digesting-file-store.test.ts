/**
 * The resumable uploads' file store: digests running across writes equal those of the whole file (SHA-256 and the
 * upload's checksumAlgorithm, no more); a new instance
 * (a restarted node) continues from the file; a body failing part-way leaves offset and digests on the same bytes.
 */
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { Upload } from "@tus/utils";
import { DigestingFileStore } from "../../../src/uploads/digesting-file-store.ts";

const hex = (algorithm: string, bytes: Buffer) => createHash(algorithm).update(bytes).digest("hex");

describe("DigestingFileStore", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(tmpdir(), "d1node-uploads-"));
  });
  after(() => rm(folder, { recursive: true, force: true }));

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
    const first = new DigestingFileStore(folder, 0);
    await newUpload(first, "a".repeat(32), bytes.length, { checksumAlgorithm: "SHA-512" });
    assert.equal(
      await first.write(Readable.from([bytes.subarray(0, 1_000_000)]), "a".repeat(32), 0),
      1_000_000,
    );
    assert.equal(await first.finishedDigests("a".repeat(32)), undefined);
    const rest = Readable.from([bytes.subarray(1_000_000, 2_000_000)]);
    assert.equal(await first.write(rest, "a".repeat(32), 1_000_000), 2_000_000);
    // A restarted node: the running state is rebuilt from the file once.
    const second = new DigestingFileStore(folder, 0);
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
    const store = new DigestingFileStore(folder, 0);
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
    const sha256Only = { size: bytes.length, md5: "", sha1: "", sha256: hex("sha256", bytes) };
    assert.deepEqual(await store.finishedDigests(unnamed), sha256Only);
  });

  it("a body that fails part-way leaves the file and the digests on the same bytes", async () => {
    const bytes = randomBytes(200_000);
    const store = new DigestingFileStore(folder, 0);
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
});
