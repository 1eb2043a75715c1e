/**
 * Which resource maps aggregate an object. The node keeps no package index of its own yet, so the maps it holds
 * are read (each parsed once per content, then cached) up to a bound; a search index can take this job over
 * behind the same function.
 */

import { Readable } from "node:stream";
import type { NodeContext } from "../../context/node-context.ts";
import { parseResourceMap, RESOURCE_MAP_FORMATS, ResourceMapError } from "../../ore/index.ts";
import { SMALL_READ_LIMIT } from "../../store/index.ts";
import type { StoredObject } from "../../types/stored-object.ts";

/** At most this many resource maps are examined per request. */
export const MAX_SCANNED_MAPS = 2000;
const CACHE_ENTRIES = 5000;
const membersByContent = new Map<string, readonly string[]>();

export async function packagesOf(ctx: NodeContext, pid: string): Promise<string[]> {
  const found: string[] = [];
  let scanned = 0;
  for (const formatId of RESOURCE_MAP_FORMATS) {
    for (let start = 0; scanned < MAX_SCANNED_MAPS; ) {
      const page = await ctx.db.objects.list({ formatId }, start, Math.min(500, MAX_SCANNED_MAPS - scanned));
      const maps = await ctx.db.objects.getMany(page.items.map((info) => info.identifier));
      for (const info of page.items) {
        scanned++;
        const map = maps.get(info.identifier);
        if (map && (await membersOf(ctx, map)).includes(pid)) found.push(info.identifier);
      }
      start += page.items.length;
      if (page.items.length === 0 || start >= page.total) break;
    }
  }
  return found;
}

async function membersOf(ctx: NodeContext, map: StoredObject): Promise<readonly string[]> {
  // A map known by its system metadata only (a CN's record of a map held elsewhere): no members to read here.
  if (map.contentKey === "") return [];
  const cached = membersByContent.get(map.contentKey);
  if (cached) return cached;
  const { size } = map.digests;
  const bytes =
    size <= SMALL_READ_LIMIT && ctx.store.readSmall
      ? Readable.from([ctx.store.readSmall(map.contentKey, size)])
      : ctx.store.read(map.contentKey, { start: 0, end: Math.max(size - 1, 0) });
  let members: readonly string[] = [];
  try {
    members = (await parseResourceMap(bytes)).members;
  } catch (error) {
    if (!(error instanceof ResourceMapError)) throw error;
  }
  if (membersByContent.size >= CACHE_ENTRIES)
    membersByContent.delete(membersByContent.keys().next().value as string);
  membersByContent.set(map.contentKey, members);
  return members;
}
