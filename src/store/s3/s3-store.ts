/**
 * The object store in an S3-compatible bucket, through the official AWS SDK. Committed bytes live at
 * `<prefix>objects/ab/cd/<sha256>` (the filesystem store's layout); an upload streams into `<prefix>tmp/<uuid>`
 * (a multipart upload, hashed on the way) and commit copies it to its content key, server side, then deletes the
 * temporary. S3 has no rename, and the key is only known once every byte has been hashed.
 * Temporaries a crash leaves (objects and unfinished multipart uploads) are removed by `sweepTemp` once older
 * than `tempMaxAgeSeconds`: the bucket may be shared by several processes, whose uploads in progress are young.
 */
import { createHash, randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  paginateListObjectsV2,
  S3Client,
} from "@aws-sdk/client-s3";
import {
  contentKeyOf,
  objectKey,
  objectsPrefix,
  type S3Location,
  tempPrefix,
} from "../../config/s3-location.ts";
import { S3_MAX_PARTS } from "../../config/s3-part-size.ts";
import { algorithmKey, setDigest } from "../algorithms.ts";
import { createRemovalHold } from "../removal-hold.ts";
import type { ObjectStore, StagedObject } from "../types.ts";
import { copyObject, describe, getStream, isMissing } from "./calls.ts";
import { uploadHashed } from "./upload.ts";

export interface S3StoreOptions extends S3Location {
  /** e.g. http://127.0.0.1:7480 for a RADOS Gateway; unset: AWS. */
  endpoint?: string;
  /** Unset: AWS_REGION, AWS_DEFAULT_REGION, else us-east-1. */
  region?: string;
  /** Address buckets as http://endpoint/bucket (most S3-compatible servers) rather than http://bucket.endpoint. */
  forcePathStyle?: boolean;
  /** Unset: the AWS SDK's default chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, ~/.aws files, roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Multipart part size (default 8 MiB; S3's minimum is 5 MiB); larger when a stage's expected size needs it. */
  partSize?: number;
  /** Most parts of one multipart upload (S3's limit, 10,000; lower only in tests). */
  maxParts?: number;
  /** Parts of one upload in flight at once (default 4): memory per upload is about queueSize x partSize. */
  queueSize?: number;
  /** Temporaries older than this are a crash's leftovers (default one day). */
  tempMaxAgeSeconds?: number;
}

export async function createS3Store(options: S3StoreOptions): Promise<ObjectStore> {
  // The SDK warns on Node 20 that releases after January 2027 will need Node 22; the locked release runs here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const client = new S3Client({
    region: options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? "us-east-1",
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    forcePathStyle: options.forcePathStyle ?? false,
    ...(options.credentials ? { credentials: options.credentials } : {}),
    // Checksums only where S3 demands them: S3-compatible servers do not all take the SDK's trailing CRC32.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  const location: S3Location = { bucket: options.bucket, prefix: options.prefix };
  const Bucket = options.bucket;
  try {
    await client.send(new HeadBucketCommand({ Bucket }));
  } catch (error) {
    client.destroy();
    throw new Error(
      `the S3 bucket "${Bucket}"${options.endpoint ? ` at ${options.endpoint}` : ""} cannot be used: ${describe(error)}`,
    );
  }
  const upload = {
    client,
    bucket: Bucket,
    partSize: options.partSize ?? 8 << 20,
    queueSize: options.queueSize ?? 4,
    maxParts: options.maxParts ?? S3_MAX_PARTS,
  };
  const tempMaxAgeMs = (options.tempMaxAgeSeconds ?? 86_400) * 1000;
  /** Temporary keys this instance is writing or holds staged: sweeps leave them alone. */
  const active = new Set<string>();
  const removals = createRemovalHold();
  let closed = false;

  const remove = (Key: string) => client.send(new DeleteObjectCommand({ Bucket, Key })).then(() => undefined);
  const copy = (from: string, to: string, size: number) => copyObject(client, Bucket, from, to, size);

  return {
    uploadPlace: {
      kind: "s3",
      client,
      bucket: Bucket,
      prefix: `${location.prefix}uploads/`,
      partSize: upload.partSize,
      maxParts: upload.maxParts,
    },

    async stage(source, stageOptions = {}): Promise<StagedObject> {
      if (closed) throw new Error("The object store is closed.");
      const temp = `${tempPrefix(location)}${randomUUID()}`;
      active.add(temp);
      let digests: Awaited<ReturnType<typeof uploadHashed>>;
      try {
        digests = await uploadHashed(upload, temp, source, stageOptions);
        if (closed) throw new Error("The object store is closed.");
      } catch (error) {
        await remove(temp).catch(() => undefined);
        active.delete(temp);
        throw error;
      }
      const key = digests.sha256;
      let state: "staged" | "committed" | "discarded" = "staged";
      let committing: Promise<void> | undefined;
      return {
        digests,
        key,
        commit() {
          if (state === "discarded") return Promise.reject(new Error("The staged object was discarded."));
          committing ??= (async () => {
            await copy(temp, objectKey(location, key), digests.size);
            state = "committed";
            active.delete(temp);
            await remove(temp).catch(() => undefined);
          })().catch((error: unknown) => {
            committing = undefined;
            throw error;
          });
          return committing;
        },
        read() {
          if (state !== "staged") throw new Error("Staged bytes can only be read before commit.");
          return getStream(client, Bucket, temp);
        },
        async addDigest(algorithm) {
          const hashKey = algorithmKey(algorithm);
          if (!hashKey) {
            throw Object.assign(new Error(`Unknown algorithm ${algorithm}.`), {
              code: "UNSUPPORTED_ALGORITHM",
            });
          }
          if (state !== "staged") throw new Error("Digests can only be added before commit.");
          const hash = createHash(hashKey);
          for await (const chunk of getStream(client, Bucket, temp)) hash.update(chunk as Buffer);
          setDigest(digests, hashKey, hash.digest("hex"));
        },
        async discard() {
          if (state !== "staged" || committing) return;
          state = "discarded";
          await remove(temp);
          active.delete(temp);
        },
      };
    },

    read(key, range) {
      const Key = objectKey(location, key);
      // "bytes=0--1" is no range: an empty object (or empty slice) is read without asking.
      if (range && range.end < range.start) return Readable.from([]);
      return getStream(client, Bucket, Key, range, key);
    },

    async has(key) {
      try {
        await client.send(new HeadObjectCommand({ Bucket, Key: objectKey(location, key) }));
        return true;
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    },

    async remove(key) {
      if (removals.defer(key)) return;
      await remove(objectKey(location, key));
    },

    holdRemovals() {
      return removals.hold();
    },

    async sweepTemp() {
      const cutoff = Date.now() - tempMaxAgeMs;
      const Prefix = tempPrefix(location);
      let removed = 0;
      for await (const page of paginateListObjectsV2({ client }, { Bucket, Prefix })) {
        for (const entry of page.Contents ?? []) {
          if (!entry.Key || active.has(entry.Key) || (entry.LastModified?.getTime() ?? 0) > cutoff) continue;
          await remove(entry.Key);
          removed++;
        }
      }
      let KeyMarker: string | undefined;
      let UploadIdMarker: string | undefined;
      do {
        const page = await client.send(
          new ListMultipartUploadsCommand({ Bucket, Prefix, KeyMarker, UploadIdMarker }),
        );
        for (const unfinished of page.Uploads ?? []) {
          const { Key, UploadId } = unfinished;
          if (!Key || !UploadId || active.has(Key) || (unfinished.Initiated?.getTime() ?? 0) > cutoff)
            continue;
          await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId }));
          removed++;
        }
        ({ NextKeyMarker: KeyMarker, NextUploadIdMarker: UploadIdMarker } = page);
        if (!page.IsTruncated) break;
      } while (KeyMarker);
      return removed;
    },

    async *keys() {
      for await (const page of paginateListObjectsV2(
        { client },
        { Bucket, Prefix: objectsPrefix(location) },
      )) {
        for (const entry of page.Contents ?? []) {
          const key = entry.Key ? contentKeyOf(location, entry.Key) : undefined;
          if (key) yield key;
        }
      }
    },

    async close() {
      closed = true;
      client.destroy();
    },
  };
}
