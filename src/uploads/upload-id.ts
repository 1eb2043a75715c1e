/**
 * Upload ids as the node issues them (@tus/server's naming: 16 random bytes in lower-case hex) and nothing else:
 * an id is a file name in the upload folder, so only this exact shape may ever be one.
 */
const UPLOAD_ID = /^[0-9a-f]{32}$/;

/** Whether `value` is an upload id of the shape the node issues. */
export function isUploadId(value: string): boolean {
  return UPLOAD_ID.test(value);
}

/** `id` itself when it has the node's shape; throws (a node fault: callers validate ids first) otherwise. */
export function checkedUploadId(id: string): string {
  if (!isUploadId(id)) throw new Error(`Not an upload id: ${JSON.stringify(id.slice(0, 80))}.`);
  return id;
}
