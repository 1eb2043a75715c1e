/**
 * The part size of one S3 multipart upload. S3: "Part numbers can be any number from 1 to 10,000, inclusive"
 * (UploadPart), and every part but the last holds 5 MiB to 5 GiB: with a fixed part size, the largest object is
 * partSize x 10,000 (78 GiB at 8 MiB). When the size is known before the bytes (declared by the system
 * metadata), the parts grow to fit it; when unknown, the configured size holds and the upload stops, with a
 * clear error, before it would need part 10,001 (see `partLimitError`).
 */
import { InsufficientResources } from "../errors/exceptions.ts";

/** S3's largest part number. */
export const S3_MAX_PARTS = 10_000;
/** S3's smallest part (all but the last). */
export const S3_MIN_PART = 5 << 20;
/** S3's largest part. */
export const S3_MAX_PART = 5 * 1024 ** 3;
const MIB = 1 << 20;
/**
 * Parts planned for an object of known size: nine tenths of the most allowed (9,000 of 10,000), so that an object
 * a little larger than declared (a sysmeta whose size is wrong) still fits and fails on its checksum instead.
 */
const PLANNED_SHARE = 0.9;

/**
 * partSize = max(configured, ceil(expectedSize / 9,000) rounded up to a MiB), at most 5 GiB. An unknown size keeps
 * the configured part size.
 */
export function partSizeFor(configured: number, expectedSize?: number, maxParts = S3_MAX_PARTS): number {
  if (expectedSize === undefined || !(expectedSize > 0)) return configured;
  const planned = Math.max(1, Math.floor(maxParts * PLANNED_SHARE));
  const fitting = Math.ceil(expectedSize / planned / MIB) * MIB;
  return Math.min(Math.max(configured, fitting), S3_MAX_PART);
}

/** The most bytes one upload can hold in `maxParts` parts of `partSize`. */
export function largestUpload(partSize: number, maxParts = S3_MAX_PARTS): number {
  return partSize * maxParts;
}

/**
 * "InsufficientResources (413): load, storage, or size prevents the request" (API text, Errors): the object is
 * larger than `maxParts` parts of `partSize` hold, and its size was not known in time to choose larger parts
 * (or it is larger than its declared `expectedSize`).
 */
export function partLimitError(
  partSize: number,
  maxParts: number,
  expectedSize?: number,
): InstanceType<typeof InsufficientResources> {
  const parts = `${maxParts} parts of ${partSize} bytes: ${largestUpload(partSize, maxParts)} bytes`;
  return new InsufficientResources(
    expectedSize === undefined
      ? `The object is larger than this node's S3 store takes when its size is not known before its bytes ` +
          `(${parts}); nothing was stored. Send the sysmeta part before the object part, so that its size ` +
          `chooses the part size, or raise the setting storePartSize.`
      : `The object is larger than its declared size (${expectedSize} bytes) allows this node's S3 store to ` +
          `take (${parts}); nothing was stored.`,
  );
}
