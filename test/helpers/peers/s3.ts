/**
 * A real S3 server for the tests: Ceph's RADOS Gateway, started once by scripts/s3-test-server.sh (which does
 * nothing when it already answers), and a fresh bucket per suite, emptied and removed afterwards.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import {
  AbortMultipartUploadCommand,
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  ListMultipartUploadsCommand,
  paginateListObjectsV2,
  S3Client,
} from "@aws-sdk/client-s3";
import type { ConfigInput } from "../../../src/config/config.ts";
import type { S3StoreOptions } from "../../../src/store/s3/s3-store.ts";

const PORT = process.env.D1NODE_TEST_S3_PORT ?? "17480";
export const S3_ENDPOINT = `http://127.0.0.1:${PORT}`;
export const S3_CREDENTIALS = { accessKeyId: "d1nodetest", secretAccessKey: "d1nodetestsecret" };

let started = false;

/** Starts the gateway unless it runs (a clear error, not a skip, when it cannot). */
export function ensureS3Server(): void {
  if (started) return;
  const script = path.join(import.meta.dirname, "..", "..", "..", "scripts", "s3-test-server.sh");
  execFileSync("bash", [script, "start"], { stdio: ["ignore", "inherit", "inherit"] });
  started = true;
}

export function s3Client(): S3Client {
  return new S3Client({
    region: "us-east-1",
    endpoint: S3_ENDPOINT,
    forcePathStyle: true,
    credentials: S3_CREDENTIALS,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

export interface TestBucket {
  name: string;
  /** Store options for this bucket (add a prefix as needed). */
  options(prefix?: string): S3StoreOptions;
  /** The gateway's own client. */
  client: S3Client;
  drop(): Promise<void>;
}

export async function createTestBucket(): Promise<TestBucket> {
  ensureS3Server();
  const client = s3Client();
  const name = `d1node-test-${randomBytes(6).toString("hex")}`;
  await client.send(new CreateBucketCommand({ Bucket: name }));
  return {
    name,
    client,
    options: (prefix = "") => ({
      bucket: name,
      prefix,
      endpoint: S3_ENDPOINT,
      region: "us-east-1",
      forcePathStyle: true,
      credentials: S3_CREDENTIALS,
      partSize: 5 << 20,
    }),
    async drop() {
      await emptyBucket(client, name);
      await client.send(new DeleteBucketCommand({ Bucket: name }));
      client.destroy();
    },
  };
}

/**
 * A node's settings for `bucket`. The SDK takes credentials from the environment, as a deployed node does; the
 * tests' process carries the gateway's user.
 */
export function s3NodeSettings(bucket: TestBucket): ConfigInput {
  process.env.AWS_ACCESS_KEY_ID = S3_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = S3_CREDENTIALS.secretAccessKey;
  return { store: `s3://${bucket.name}/node`, storeEndpoint: S3_ENDPOINT, storePathStyle: true };
}

/** Counts of objects and unfinished multipart uploads under `prefix`. */
export async function countUnder(client: S3Client, Bucket: string, Prefix: string): Promise<number> {
  let count = 0;
  for await (const page of paginateListObjectsV2({ client }, { Bucket, Prefix })) count += page.KeyCount ?? 0;
  const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket, Prefix }));
  return count + (uploads.Uploads?.length ?? 0);
}

async function emptyBucket(client: S3Client, Bucket: string): Promise<void> {
  for await (const page of paginateListObjectsV2({ client }, { Bucket })) {
    for (const entry of page.Contents ?? [])
      await client.send(new DeleteObjectCommand({ Bucket, Key: entry.Key }));
  }
  const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket }));
  for (const { Key, UploadId } of uploads.Uploads ?? []) {
    await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId }));
  }
}
