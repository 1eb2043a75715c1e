/**
 * One streaming pass over an upload into S3: the bytes go through the hashes (size and those `ingestHashes`
 * names) on their way into a multipart upload (`@aws-sdk/lib-storage`, at most
 * `queueSize` parts of `partSize` bytes in memory). Nothing is kept beyond those parts.
 */
import { createHash, type Hash } from "node:crypto";
import { type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { largestUpload, partLimitError, partSizeFor } from "../../config/s3-part-size.ts";
import { declaredHash, digestsOf, type HashKey, ingestHashes } from "../algorithms.ts";
import type { Digests, StageOptions } from "../types.ts";
import { toBuffer } from "../upload-ring/chunk-pump.ts";

export interface UploadSettings {
  client: S3Client;
  bucket: string;
  /** Bytes per multipart part (S3's minimum is 5 MiB), unless the expected size needs larger ones. */
  partSize: number;
  /** Parts of one upload sent at once. */
  queueSize: number;
  /** Most parts of one upload (S3: 10,000). */
  maxParts: number;
}

/** The hashes to compute for `options.algorithm`; throws UNSUPPORTED_ALGORITHM before any byte is read. */
export function hashesFor(options: StageOptions): { hashes: HashKey[]; declared: HashKey | undefined } {
  const declared = declaredHash(options.algorithm);
  return { hashes: ingestHashes(declared), declared };
}

/**
 * Streams `source` to `key`, hashing as it goes. On any failure nothing is left under `key` (parts aborted). The
 * part size fits `options.expectedSize` when given; bytes beyond what `maxParts` parts hold fail the upload with
 * InsufficientResources before the part after the last is sent.
 */
export async function uploadHashed(
  settings: UploadSettings,
  key: string,
  source: Readable,
  options: StageOptions,
): Promise<Digests> {
  const { hashes, declared } = hashesFor(options);
  const { signal } = options;
  signal?.throwIfAborted();
  const hashers = hashes.map((name) => [name, createHash(name)] as [HashKey, Hash]);
  const { expectedSize } = options;
  const partSize = partSizeFor(settings.partSize, expectedSize, settings.maxParts);
  const most = largestUpload(partSize, settings.maxParts);
  let size = 0;
  const hashing = new Transform({
    writableObjectMode: true,
    transform(chunk: unknown, _encoding, done) {
      let bytes: Buffer;
      try {
        bytes = toBuffer(chunk);
      } catch (error) {
        done(error as Error);
        return;
      }
      size += bytes.length;
      if (size > most) {
        done(partLimitError(partSize, settings.maxParts, expectedSize));
        return;
      }
      for (const [, hash] of hashers) hash.update(bytes);
      done(null, bytes);
    },
  });
  const upload = new Upload({
    client: settings.client,
    params: { Bucket: settings.bucket, Key: key, Body: hashing },
    partSize,
    queueSize: settings.queueSize,
    leavePartsOnError: false,
  });
  // The first failure wins: the source's (a client gone) or the abort's reason, before the upload's own.
  let failure: unknown;
  const feeding = pipeline(source, hashing).catch((error: unknown) => {
    failure ??= error;
  });
  // An abort ends the source, which fails the upload's own feeder: lib-storage then aborts the multipart upload
  // before `done()` rejects. (`upload.abort()` would make `done()` reject at once, with the multipart upload still
  // being aborted, or even still being created, behind it.)
  const onAbort = () => {
    failure ??= signal?.reason;
    source.destroy(signal?.reason as Error);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await upload.done();
    await feeding;
    if (failure !== undefined) throw failure;
  } catch (error) {
    if (!source.destroyed) source.destroy();
    await feeding;
    throw failure ?? error;
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  return digestsOf(
    size,
    Object.fromEntries(hashers.map(([name, hash]) => [name, hash.digest("hex")])),
    declared,
  );
}
