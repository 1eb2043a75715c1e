/**
 * Digests recomputed from an object's stored bytes (one streamed read), for when the digests recorded at upload
 * are not enough: a CN auditing replicas, a node checking a replica it already holds, and the digests an upload
 * did not compute (only SHA-256 and the system metadata's algorithm are computed as the bytes arrive), which are
 * computed on first request and recorded.
 */
import { createHash } from "node:crypto";
import type { NodeContext } from "../../context/node-context.ts";
import { InvalidRequest, NotFound, ServiceFailure } from "../../errors/exceptions.ts";
import { algorithmKey, type HashKey, recordedDigest } from "../../store/index.ts";
import type { ObjectStore } from "../../store/types.ts";
import type { StoredObject } from "../../types/stored-object.ts";

/** The hex digest of the stored bytes; NotFound when they are missing from the store. */
export async function digestOfStoredBytes(
  ctx: NodeContext,
  object: StoredObject,
  algorithm: string,
): Promise<{ value: string; size: number }> {
  const key = algorithmKey(algorithm);
  if (!key) {
    throw new InvalidRequest(`Checksum algorithm "${algorithm}" is not supported.`, {
      pid: object.sysmeta.identifier,
    });
  }
  const { values, size } = await hashStoredBytes(ctx, object, [key]);
  return { value: values.get(key) ?? "", size };
}

/** Digests being computed, by store and `${hash} ${content key}`: concurrent first requests share one read. */
const computing = new WeakMap<ObjectStore, Map<string, Promise<string>>>();

/**
 * The object's `hash` digest: the recorded one, or (MD5, SHA-1, SHA-256 not computed at upload) computed from
 * the stored bytes, checked against the content key, and recorded for every object with these bytes. Undefined
 * for an algorithm beyond those three that was not recorded at upload.
 */
export async function knownDigest(
  ctx: NodeContext,
  object: StoredObject,
  hash: HashKey,
): Promise<string | undefined> {
  const recorded = recordedDigest(object.digests, hash);
  if (recorded !== undefined) return recorded;
  if (hash !== "md5" && hash !== "sha1" && hash !== "sha256") return undefined;
  let inFlight = computing.get(ctx.store);
  if (!inFlight) {
    inFlight = new Map();
    computing.set(ctx.store, inFlight);
  }
  const id = `${hash} ${object.contentKey}`;
  let value = inFlight.get(id);
  if (!value) {
    const running = computeAndRecord(ctx, object, hash).finally(() => inFlight.delete(id));
    inFlight.set(id, running);
    value = running;
  }
  return value;
}

/** `object` with its MD5, SHA-1 and SHA-256 all known (a copy when one had to be computed). */
export async function withDigest(
  ctx: NodeContext,
  object: StoredObject,
  hash: "md5" | "sha1" | "sha256",
): Promise<StoredObject> {
  if (object.digests[hash]) return object;
  const value = (await knownDigest(ctx, object, hash)) ?? "";
  return { ...object, digests: { ...object.digests, [hash]: value } };
}

async function computeAndRecord(
  ctx: NodeContext,
  object: StoredObject,
  hash: "md5" | "sha1" | "sha256",
): Promise<string> {
  const { values, size } = await hashStoredBytes(ctx, object, [...new Set<HashKey>([hash, "sha256"])]);
  const sha256 = values.get("sha256");
  if (size !== object.digests.size || sha256 !== object.contentKey) {
    throw new ServiceFailure(
      `The stored bytes of "${object.sysmeta.identifier}" are not the ones recorded (${size} bytes, SHA-256 ` +
        `${sha256}); the node's administrator can check them with d1node audit.`,
      { pid: object.sysmeta.identifier },
    );
  }
  const value = values.get(hash) ?? "";
  await ctx.db.objects.recordDigest(object.contentKey, hash, value);
  return value;
}

async function hashStoredBytes(
  ctx: NodeContext,
  object: StoredObject,
  keys: readonly HashKey[],
): Promise<{ values: Map<HashKey, string>; size: number }> {
  const pid = object.sysmeta.identifier;
  const hashes = keys.map((key) => [key, createHash(key)] as const);
  let size = 0;
  try {
    for await (const chunk of ctx.store.read(object.contentKey) as AsyncIterable<Buffer>) {
      for (const [, hash] of hashes) hash.update(chunk);
      size += chunk.length;
    }
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") {
      throw new NotFound(`The bytes of "${pid}" are missing from this node's store.`, { pid });
    }
    throw error;
  }
  return { values: new Map(hashes.map(([key, hash]) => [key, hash.digest("hex")])), size };
}
