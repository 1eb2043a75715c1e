/** Where an S3 store lives: `s3://bucket/prefix` plus the endpoint settings, and how its keys are laid out. */

export interface S3Location {
  bucket: string;
  /** Key prefix, empty or ending in "/". */
  prefix: string;
}

/** Bucket names as S3 allows them (3-63 lower-case letters, digits, dots, hyphens). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Parses `s3://bucket` or `s3://bucket/some/prefix`; throws an Error saying what is wrong. */
export function parseS3Url(url: string): S3Location {
  const match = /^s3:\/\/([^/]*)(?:\/(.*))?$/.exec(url);
  if (!match) throw new Error(`"${url}" is not an S3 location such as s3://bucket/prefix`);
  const bucket = match[1] ?? "";
  if (!BUCKET.test(bucket)) throw new Error(`"${bucket}" in "${url}" is not a valid S3 bucket name`);
  const path = (match[2] ?? "").replace(/^\/+|\/+$/g, "");
  if (path.split("/").some((part) => part === "." || part === "..")) {
    throw new Error(`the prefix of "${url}" cannot contain "." or ".." segments`);
  }
  return { bucket, prefix: path ? `${path.replace(/\/{2,}/g, "/")}/` : "" };
}

const KEY = /^[0-9a-f]{64}$/;

/** Throws INVALID_KEY unless `key` is a SHA-256 hex string. */
export function checkKey(key: string): void {
  if (!KEY.test(key)) {
    throw Object.assign(new Error(`Not a content key: ${JSON.stringify(key)}.`), { code: "INVALID_KEY" });
  }
}

/** Committed bytes: `<prefix>objects/ab/cd/<sha256>`, the filesystem store's layout. */
export function objectKey(location: S3Location, key: string): string {
  checkKey(key);
  return `${location.prefix}objects/${key.slice(0, 2)}/${key.slice(2, 4)}/${key}`;
}

export function objectsPrefix(location: S3Location): string {
  return `${location.prefix}objects/`;
}

/** Uploads not yet committed: `<prefix>tmp/<uuid>`. */
export function tempPrefix(location: S3Location): string {
  return `${location.prefix}tmp/`;
}

/** The content key of an object key under `objects/`, when it is one. */
export function contentKeyOf(location: S3Location, objectKeyName: string): string | undefined {
  const key = objectKeyName.slice(objectKeyName.lastIndexOf("/") + 1);
  return KEY.test(key) && objectKeyName === objectKey(location, key) ? key : undefined;
}
