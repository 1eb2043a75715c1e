/**
 * Single S3 operations the store composes: a ranged read as a stream, a server-side copy of any size, and
 * the SDK's errors read as status, "missing" and a line an operator can act on.
 */
import { Readable } from "node:stream";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  type S3Client,
  UploadPartCopyCommand,
} from "@aws-sdk/client-s3";

/** CopyObject copies at most 5 GiB; larger objects are copied in parts of this size. */
const COPY_LIMIT = 5 * 1024 ** 3;
const COPY_PART = 1024 ** 3;
const READ_CHUNK = 1 << 20;

/** A read stream of `Key` (optionally a byte range, end inclusive); a missing key errors it with ENOENT. */
export function getStream(
  client: S3Client,
  Bucket: string,
  Key: string,
  range?: { start: number; end: number },
  contentKey?: string,
): Readable {
  async function* bytes(): AsyncGenerator<Buffer> {
    let body: Readable;
    try {
      const response = await client.send(
        new GetObjectCommand({
          Bucket,
          Key,
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      body = response.Body as Readable;
    } catch (error) {
      // A range starting at the end of the object (an empty object's "bytes=0-0"): no bytes.
      if (statusOf(error) === 416) return;
      if (isMissing(error)) {
        throw Object.assign(new Error(`No stored bytes under ${contentKey ?? Key}.`), { code: "ENOENT" });
      }
      throw error;
    }
    yield* body;
  }
  return Readable.from(bytes(), { objectMode: false, highWaterMark: READ_CHUNK });
}

/** Server-side copy: one CopyObject up to 5 GiB, a multipart copy beyond (aborted on failure). */
export async function copyObject(
  client: S3Client,
  Bucket: string,
  from: string,
  to: string,
  size: number,
): Promise<void> {
  const CopySource = `${Bucket}/${from.split("/").map(encodeURIComponent).join("/")}`;
  if (size <= COPY_LIMIT) {
    await client.send(new CopyObjectCommand({ Bucket, Key: to, CopySource }));
    return;
  }
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket, Key: to }));
  try {
    const Parts: { ETag: string; PartNumber: number }[] = [];
    for (let start = 0, PartNumber = 1; start < size; start += COPY_PART, PartNumber++) {
      const end = Math.min(start + COPY_PART, size) - 1;
      const part = await client.send(
        new UploadPartCopyCommand({
          Bucket,
          Key: to,
          UploadId,
          PartNumber,
          CopySource,
          CopySourceRange: `bytes=${start}-${end}`,
        }),
      );
      Parts.push({ ETag: part.CopyPartResult?.ETag ?? "", PartNumber });
    }
    await client.send(
      new CompleteMultipartUploadCommand({ Bucket, Key: to, UploadId, MultipartUpload: { Parts } }),
    );
  } catch (error) {
    await client.send(new AbortMultipartUploadCommand({ Bucket, Key: to, UploadId })).catch(() => undefined);
    throw error;
  }
}

export function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

export function isMissing(error: unknown): boolean {
  const name = (error as { name?: string }).name;
  return statusOf(error) === 404 || name === "NoSuchKey" || name === "NotFound";
}

export function describe(error: unknown): string {
  const status = statusOf(error);
  const name = (error as { name?: string }).name;
  const message = error instanceof Error ? error.message : String(error);
  if (status === 404) return "no such bucket";
  if (status === 403) return "access denied (check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY)";
  return [status ? `HTTP ${status}` : undefined, name && name !== "Error" ? name : undefined, message]
    .filter(Boolean)
    .join(": ");
}
