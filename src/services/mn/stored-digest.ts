/**
 * A digest recomputed from an object's stored bytes (one streamed read), for when the digests recorded at upload
 * are not enough: a CN auditing replicas, a node checking a replica it already holds.
 */
import { createHash } from "node:crypto";
import { InvalidRequest, NotFound } from "../../errors/exceptions.ts";
import { algorithmKey } from "../../store/index.ts";
import type { StoredObject } from "../../types/stored-object.ts";
import type { NodeContext } from "../context.ts";

/** The hex digest of the stored bytes; NotFound when they are missing from the store. */
export async function digestOfStoredBytes(
  ctx: NodeContext,
  object: StoredObject,
  algorithm: string,
): Promise<{ value: string; size: number }> {
  const pid = object.sysmeta.identifier;
  const key = algorithmKey(algorithm);
  if (!key) throw new InvalidRequest(`Checksum algorithm "${algorithm}" is not supported.`, { pid });
  const hash = createHash(key);
  let size = 0;
  try {
    for await (const chunk of ctx.store.read(object.contentKey)) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") {
      throw new NotFound(`The bytes of "${pid}" are missing from this node's store.`, { pid });
    }
    throw error;
  }
  return { value: hash.digest("hex"), size };
}
