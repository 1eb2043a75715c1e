/**
 * Objects larger than S3's part limit allows at the configured part size, against a real RADOS Gateway, with the
 * limit lowered from 10,000 to 3 parts (of 5 MiB: 15 MiB). Size declared first: the parts grow and the upload
 * succeeds. Size unknown (or larger than declared) and too big: InsufficientResources, and nothing is left behind
 * (no temporary object, no multipart upload still open).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { HeadObjectCommand, ListMultipartUploadsCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import { D1Error } from "../../src/errors/exceptions.ts";
import { createS3Store } from "../../src/store/s3/s3-store.ts";
import type { ObjectStore } from "../../src/store/types.ts";
import { countUnder, createTestBucket, type TestBucket } from "../helpers/peers/s3.ts";

const MiB = 1 << 20;
const PREFIX = "node/";

/** `size` bytes of a repeating pattern, made 1 MiB at a time (never the whole object in memory). */
function bytesOf(size: number): Readable {
  const chunk = Buffer.alloc(MiB, "d1node part limit ");
  return Readable.from(
    (function* () {
      for (let left = size; left > 0; left -= MiB) yield left >= MiB ? chunk : chunk.subarray(0, left);
    })(),
  );
}

function sha256Of(size: number): string {
  const chunk = Buffer.alloc(MiB, "d1node part limit ");
  const hash = createHash("sha256");
  for (let left = size; left > 0; left -= MiB) hash.update(left >= MiB ? chunk : chunk.subarray(0, left));
  return hash.digest("hex");
}

describe("S3 store: objects beyond the part limit", () => {
  let bucket: TestBucket;
  let store: ObjectStore;
  before(async () => {
    bucket = await createTestBucket();
    store = await createS3Store({ ...bucket.options(PREFIX), partSize: 5 * MiB, maxParts: 3 });
  });
  after(async () => {
    await store.close();
    await bucket.drop();
  });

  /** Multipart uploads still open under the prefix. */
  const openUploads = async () =>
    (await bucket.client.send(new ListMultipartUploadsCommand({ Bucket: bucket.name, Prefix: PREFIX })))
      .Uploads?.length ?? 0;

  /** The parts of the one staged temporary (its multipart ETag ends in "-<parts>"). */
  async function partsOfStaged(): Promise<number> {
    const listed = await bucket.client.send(
      new ListObjectsV2Command({ Bucket: bucket.name, Prefix: `${PREFIX}tmp/` }),
    );
    assert.equal(listed.Contents?.length, 1);
    const head = await bucket.client.send(
      new HeadObjectCommand({ Bucket: bucket.name, Key: listed.Contents?.[0]?.Key }),
    );
    const parts = /-(\d+)"?$/.exec(head.ETag ?? "")?.[1];
    assert.ok(parts, `a multipart ETag: ${head.ETag}`);
    return Number(parts);
  }

  it("a declared size larger than the parts allow gets larger parts and is stored", async () => {
    const size = 24 * MiB + 5; // 5 parts of 5 MiB: beyond 3; 2 planned parts of 13 MiB
    const staged = await store.stage(bytesOf(size), { expectedSize: size });
    assert.equal(staged.digests.size, size);
    assert.equal(staged.key, sha256Of(size));
    assert.equal(await partsOfStaged(), 2);
    await staged.commit();
    const read = createHash("sha256");
    for await (const chunk of store.read(staged.key)) read.update(chunk as Buffer);
    assert.equal(read.digest("hex"), staged.key);
    await store.remove(staged.key);
    assert.equal(await countUnder(bucket.client, bucket.name, PREFIX), 0);
  });

  it("an unknown size within the parts allowed is stored in parts of the configured size", async () => {
    const size = 12 * MiB;
    const staged = await store.stage(bytesOf(size));
    assert.equal(await partsOfStaged(), 3);
    await staged.discard();
    assert.equal(await countUnder(bucket.client, bucket.name, PREFIX), 0);
  });

  it("an unknown size beyond the parts allowed fails clearly, leaving nothing", async () => {
    await assert.rejects(store.stage(bytesOf(15 * MiB + 1)), (error: unknown) => {
      assert.ok(error instanceof D1Error);
      assert.equal(error.exception, "InsufficientResources");
      assert.match(error.description, /3 parts of 5242880 bytes: 15728640 bytes/);
      assert.match(error.description, /Send the sysmeta part before the object part/);
      assert.match(error.description, /storePartSize/);
      return true;
    });
    assert.equal(await openUploads(), 0);
    assert.equal(await countUnder(bucket.client, bucket.name, PREFIX), 0);
  });

  it("more bytes than declared, beyond the parts allowed, fail clearly, leaving nothing", async () => {
    await assert.rejects(store.stage(bytesOf(16 * MiB), { expectedSize: 10 * MiB }), (error: unknown) => {
      assert.ok(error instanceof D1Error);
      assert.equal(error.exception, "InsufficientResources");
      assert.match(error.description, /larger than its declared size \(10485760 bytes\)/);
      return true;
    });
    assert.equal(await openUploads(), 0);
    assert.equal(await countUnder(bucket.client, bucket.name, PREFIX), 0);
  });
});
