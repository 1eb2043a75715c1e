/** The S3 store passes the shared ObjectStore conformance suite against a real RADOS Gateway. */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { resolveConfig } from "../../src/config/config.ts";
import { parseS3Url } from "../../src/config/s3-location.ts";
import { createS3Store } from "../../src/store/s3/s3-store.ts";
import { countUnder, createTestBucket, S3_ENDPOINT } from "../helpers/peers/s3.ts";
import { runObjectStoreSuite } from "./object-store-suite.ts";

runObjectStoreSuite("S3 (RADOS Gateway)", async () => {
  const bucket = await createTestBucket();
  const prefix = "node/a/";
  const store = await createS3Store(bucket.options(prefix));
  return {
    store,
    // A restart long after the crash: every temporary not in progress here is old enough to go.
    reopen: () => createS3Store({ ...bucket.options(prefix), tempMaxAgeSeconds: 0 }),
    temps: () => countUnder(bucket.client, bucket.name, `${prefix}tmp/`),
    leaveTemp: () =>
      bucket.client
        .send(
          new PutObjectCommand({ Bucket: bucket.name, Key: `${prefix}tmp/${randomUUID()}`, Body: "left" }),
        )
        .then(() => undefined),
    async dispose() {
      await store.close();
      await bucket.drop();
    },
  };
});

describe("S3 store settings", () => {
  it("parses s3://bucket/prefix", () => {
    assert.deepEqual(parseS3Url("s3://my-bucket"), { bucket: "my-bucket", prefix: "" });
    assert.deepEqual(parseS3Url("s3://my-bucket/"), { bucket: "my-bucket", prefix: "" });
    assert.deepEqual(parseS3Url("s3://my-bucket/a//b/"), { bucket: "my-bucket", prefix: "a/b/" });
    assert.throws(() => parseS3Url("http://x/y"), /not an S3 location/);
    assert.throws(() => parseS3Url("s3://A_b/x"), /not a valid S3 bucket name/);
    assert.throws(() => parseS3Url("s3://bucket/a/../b"), /cannot contain/);
  });

  it("the store settings are checked with the rest of the configuration", () => {
    assert.equal(resolveConfig({}).store, undefined);
    assert.equal(resolveConfig({ store: "s3://bucket/node" }).store, "s3://bucket/node");
    assert.throws(() => resolveConfig({ store: "/var/lib/d1node" }), /setting "store": .*not an S3 location/);
    assert.throws(
      () => resolveConfig({ storeEndpoint: "127.0.0.1:7480" }),
      /"storeEndpoint" must be an http/,
    );
    assert.equal(resolveConfig({ storePathStyle: "true" }).storePathStyle, true);
  });

  it("a missing bucket or wrong credentials are one clear error at open", async () => {
    const bucket = await createTestBucket();
    try {
      await assert.rejects(
        createS3Store({ ...bucket.options(), bucket: `${bucket.name}-absent` }),
        new RegExp(`the S3 bucket "${bucket.name}-absent" at ${S3_ENDPOINT} cannot be used: no such bucket`),
      );
      await assert.rejects(
        createS3Store({
          ...bucket.options(),
          credentials: { accessKeyId: "nobody", secretAccessKey: "wrong" },
        }),
        /cannot be used: access denied/,
      );
    } finally {
      await bucket.drop();
    }
  });
});
