/** An object's whole bytes, for the documents a DataCite record is made from (metadata, resource maps). */
import type { NodeContext } from "../context/node-context.ts";
import { SMALL_READ_LIMIT } from "../store/index.ts";
import type { StoredObject } from "../types/stored-object.ts";

/** The whole of an object's bytes. */
export async function readBytes(ctx: Pick<NodeContext, "store">, object: StoredObject): Promise<Buffer> {
  const { size } = object.digests;
  if (size <= SMALL_READ_LIMIT && ctx.store.readSmall) return ctx.store.readSmall(object.contentKey, size);
  if (size === 0) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.store.read(object.contentKey, { start: 0, end: size - 1 }))
    chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
