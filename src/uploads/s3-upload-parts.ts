/**
 * An upload's bytes in an S3 bucket, as one S3 multipart upload under `<prefix>uploads/<id>`: every full part of
 * `partSize` bytes goes up as it fills (parts must be at least 5 MiB but the last), and what a PATCH leaves over
 * waits in the object `<id>.tail` until the next PATCH (any process) prepends it to its bytes, or until the upload
 * is finished and the tail becomes the last part. `S3UploadState` says which parts and tail bytes count: a part or
 * tail written but not yet recorded (a crash in between) is written again, under the same part number.
 */
import { Readable } from "node:stream";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { partLimitError, partSizeFor } from "../config/s3-part-size.ts";
import { getStream, isMissing } from "../store/s3/calls.ts";
import type { S3UploadPlace } from "../store/upload-place.ts";
import { toBuffer } from "../store/upload-ring/chunk-pump.ts";

export interface S3UploadState {
  /** The key the assembled upload gets. */
  key: string;
  /** S3's id of the multipart upload. */
  uploadId: string;
  partSize: number;
  parts: { PartNumber: number; ETag: string; size: number }[];
  /** Bytes in `<key>.tail`, after the parts. */
  tail: number;
  /** The multipart upload was completed: the bytes are the object `key`. */
  completed: boolean;
}

/** Bytes received: the parts' and the tail's. */
export function receivedOf(state: S3UploadState): number {
  return state.parts.reduce((sum, part) => sum + part.size, 0) + state.tail;
}

const tailKey = (state: S3UploadState) => `${state.key}.tail`;

export async function startMultipart(
  place: S3UploadPlace,
  id: string,
  size: number | undefined,
): Promise<S3UploadState> {
  const key = `${place.prefix}${id}`;
  const made = await place.client.send(new CreateMultipartUploadCommand({ Bucket: place.bucket, Key: key }));
  if (!made.UploadId) throw new Error("S3 named no multipart upload.");
  const partSize = partSizeFor(place.partSize, size, place.maxParts);
  return { key, uploadId: made.UploadId, partSize, parts: [], tail: 0, completed: false };
}

/**
 * Adds `body` after the bytes `state` counts; `saved` records each new state (a part sent, the tail written)
 * before the next. A body that breaks part-way has what arrived kept as the tail; then `failure` is its error.
 */
export async function appendBody(
  place: S3UploadPlace,
  start: S3UploadState,
  body: Readable,
  saved: (state: S3UploadState) => Promise<void>,
): Promise<{ state: S3UploadState; failure?: unknown }> {
  let state = start;
  let pending: Buffer[] = state.tail > 0 ? [await readTail(place, state)] : [];
  let pendingBytes = state.tail;
  let failure: unknown;
  try {
    for await (const chunk of body) {
      const bytes = toBuffer(chunk);
      pending.push(bytes);
      pendingBytes += bytes.length;
      while (pendingBytes >= state.partSize) {
        const all = Buffer.concat(pending);
        state = await sendPart(place, state, all.subarray(0, state.partSize));
        await saved(state);
        const rest = all.subarray(state.partSize);
        pending = rest.length > 0 ? [rest] : [];
        pendingBytes = rest.length;
      }
    }
  } catch (error) {
    failure = error ?? new Error("The request body failed.");
  }
  if (pendingBytes > state.tail) {
    // What is left over (fewer bytes than a part) waits in the tail object: the old tail and what came after it.
    const rest = Buffer.concat(pending);
    await place.client.send(new PutObjectCommand({ Bucket: place.bucket, Key: tailKey(state), Body: rest }));
    state = { ...state, tail: rest.length };
    await saved(state);
  }
  return failure === undefined ? { state } : { state, failure };
}

/** Completes the multipart upload (the tail its last part): the bytes are then the object `state.key`. */
export async function completeMultipart(place: S3UploadPlace, state: S3UploadState): Promise<S3UploadState> {
  if (state.completed) return state;
  let done = state;
  if (state.tail > 0) done = { ...(await sendPart(place, state, await readTail(place, state))), tail: 0 };
  if (done.parts.length === 0) {
    // No bytes at all: S3 completes no multipart upload without parts; the object is empty.
    await abortMultipart(place, done);
    return { ...done, completed: true };
  }
  const Parts = done.parts.map(({ PartNumber, ETag }) => ({ PartNumber, ETag }));
  try {
    await place.client.send(
      new CompleteMultipartUploadCommand({
        Bucket: place.bucket,
        Key: done.key,
        UploadId: done.uploadId,
        MultipartUpload: { Parts },
      }),
    );
  } catch (error) {
    // Completed before, by a request whose record of it was lost (a crash between the two).
    if (!(await exists(place, done.key))) throw error;
  }
  await deleteKey(place, tailKey(done));
  return { ...done, completed: true };
}

/** The assembled bytes of a completed upload. */
export function readAssembled(place: S3UploadPlace, state: S3UploadState): Readable {
  if (state.parts.length === 0) return Readable.from([]);
  return getStream(place.client, place.bucket, state.key);
}

/** Removes every byte of the upload from the bucket (its parts, tail and assembled object). */
export async function removeBytes(place: S3UploadPlace, state: S3UploadState): Promise<void> {
  if (!state.completed) await abortMultipart(place, state);
  await deleteKey(place, tailKey(state));
  await deleteKey(place, state.key);
}

async function abortMultipart(place: S3UploadPlace, state: S3UploadState): Promise<void> {
  await place.client
    .send(new AbortMultipartUploadCommand({ Bucket: place.bucket, Key: state.key, UploadId: state.uploadId }))
    .catch((error: unknown) => {
      if (!isMissing(error) && (error as { name?: string }).name !== "NoSuchUpload") throw error;
    });
}

async function sendPart(place: S3UploadPlace, state: S3UploadState, bytes: Buffer): Promise<S3UploadState> {
  const PartNumber = state.parts.length + 1;
  if (PartNumber > place.maxParts) throw partLimitError(state.partSize, place.maxParts);
  const sent = await place.client.send(
    new UploadPartCommand({
      Bucket: place.bucket,
      Key: state.key,
      UploadId: state.uploadId,
      PartNumber,
      Body: bytes,
      ContentLength: bytes.length,
    }),
  );
  const part = { PartNumber, ETag: sent.ETag ?? "", size: bytes.length };
  return { ...state, parts: [...state.parts, part], tail: 0 };
}

async function readTail(place: S3UploadPlace, state: S3UploadState): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const range = { start: 0, end: state.tail - 1 };
  for await (const chunk of getStream(place.client, place.bucket, tailKey(state), range)) {
    chunks.push(toBuffer(chunk));
  }
  const bytes = Buffer.concat(chunks);
  if (bytes.length !== state.tail) throw new Error(`The tail of upload ${state.key} lost bytes.`);
  return bytes;
}

async function exists(place: S3UploadPlace, Key: string): Promise<boolean> {
  return place.client.send(new HeadObjectCommand({ Bucket: place.bucket, Key })).then(
    () => true,
    (error: unknown) => {
      if (isMissing(error)) return false;
      throw error;
    },
  );
}

async function deleteKey(place: S3UploadPlace, Key: string): Promise<void> {
  await place.client.send(new DeleteObjectCommand({ Bucket: place.bucket, Key }));
}
