/**
 * Objects found by the bytes they hold: a hash URI (`hash://sha256/<hex>`) names bytes, not an object, and stands
 * for every object, readable by the caller, whose bytes have that digest (src/db/objects/digest-match.ts).
 */
import { readFilter } from "../../auth/access.ts";
import type { CallInfo, NodeContext } from "../../context/node-context.ts";
import { NotFound } from "../../errors/exceptions.ts";
import { parseHashUri } from "../../types/content-hash.ts";
import type { StoredObject } from "../../types/stored-object.ts";

/** Objects one hash URI resolves to, at most: copies of the same bytes beyond these add no new place to get them. */
export const MAX_HASH_OBJECTS = 100;

/**
 * The objects with the bytes `uri` names that the caller may read, oldest upload first; NotFound when `uri` is
 * no hash URI the node reads or no such object is readable (a private one is not told apart from none).
 */
export async function objectsWithHash(
  ctx: NodeContext,
  call: CallInfo,
  uri: string,
): Promise<StoredObject[]> {
  const hash = parseHashUri(uri);
  if (!hash) {
    throw new NotFound(
      `"${uri}" names no object here, and is not a hash URI this node resolves ` +
        "(hash://{md5|sha1|sha256|sha384|sha512}/{hex digest}).",
      { pid: uri },
    );
  }
  const pids = await ctx.db.objects.pidsWithDigest(hash.hex, readFilter(call.session), MAX_HASH_OBJECTS);
  const found = await ctx.db.objects.getMany(pids);
  const objects = pids.flatMap((pid) => found.get(pid) ?? []);
  if (objects.length === 0) {
    throw new NotFound(`No object readable here has the bytes "${uri}" names.`, { pid: uri });
  }
  return objects;
}
