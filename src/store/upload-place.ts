/**
 * Where a store keeps the bytes of resumable uploads in progress (src/uploads), so that every process sharing
 * the store sees them: a folder beside the store's objects (same filesystem: a finished upload is renamed into
 * place), or a key prefix of its S3 bucket (an upload is an S3 multipart upload there).
 */
import type { S3Client } from "@aws-sdk/client-s3";

export interface FolderUploadPlace {
  kind: "folder";
  /** `uploads/` of the store's folder. */
  folder: string;
}

export interface S3UploadPlace {
  kind: "s3";
  client: S3Client;
  bucket: string;
  /** `<prefix>uploads/` of the store's bucket. */
  prefix: string;
  /** The store's multipart part size (larger when an upload's declared length needs it). */
  partSize: number;
  maxParts: number;
}

export type UploadPlace = FolderUploadPlace | S3UploadPlace;
